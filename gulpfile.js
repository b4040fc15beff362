const { src, dest, parallel } = require('gulp');

// tsc compiles only TypeScript: icons and the codex JSON files are copied next to the build.
function copyIcons() {
	return src('icons/**/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
