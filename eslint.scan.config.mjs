// The packed tarball, linted the way n8n's community-package scanner lints it: every compiled
// .js file and package.json, with @n8n/eslint-plugin-community-nodes' recommended rules, no-console
// as an error, and eslint-plugin-n8n-nodes-base's community rules on package.json.
// Used by scripts/scan-package.sh on the unpacked tarball in .scan/package.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

export default [
	n8nCommunityNodesPlugin.configs.recommended,
	{ files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { 'no-console': 'error' } },
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{
		files: ['**/package.json'],
		rules: { ...n8nNodesBase.configs.community.rules },
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
];
