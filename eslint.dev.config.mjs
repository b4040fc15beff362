// The rules for what is not shipped (tests, the benchmark, scripts, the sandbox): Node's globals,
// its built-in modules and the console are fine there. Each of those folders has an
// eslint.config.mjs that re-exports this one; `npm run lint` turns on ESLint's per-folder config
// lookup (the default from ESLint 10), so the package's own eslint.config.mjs stays exactly n8n's
// strict one (`n8n-node lint` checks that, then lints the whole tree): docs/development.md, ESLint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config({
	files: ['**/*.{ts,js,mjs}'],
	extends: [js.configs.recommended, tseslint.configs.recommended],
	languageOptions: {
		globals: { process: 'readonly', console: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly' },
	},
	rules: {
		'@typescript-eslint/no-require-imports': 'off',
		'@typescript-eslint/no-explicit-any': 'off',
	},
});
