// The rules n8n's node CLI (`n8n-node lint`) and its community-package scanner apply:
// @n8n/eslint-plugin-community-nodes (recommended) on the sources and package.json, and the
// community, credentials and nodes rule sets of eslint-plugin-n8n-nodes-base.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityNodesRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.n8n-data/**', 'n8n-app/**', '.scan/**', '.bench-build/**', 'eslint.scan.config.mjs'] },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended, communityNodesRecommended],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{
		files: ['package.json'],
		extends: [communityNodesRecommended],
		rules: { ...n8nNodesBase.configs.community.rules },
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Not valid for community nodes (their docs live outside n8n.io).
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// As in n8n's node CLI: inputs/outputs are NodeConnectionTypes, not strings.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{
		// Tests, scripts and the benchmark are not shipped: Node's globals and console are fine.
		files: ['test/**/*.ts', 'scripts/**/*.{js,mjs,ts}', 'bench/**/*.{js,mjs,ts}', 'sandbox/**/*.js'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		languageOptions: {
			globals: { process: 'readonly', console: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' },
		},
		rules: {
			'@typescript-eslint/no-require-imports': 'off',
			'@typescript-eslint/no-explicit-any': 'off',
		},
	},
);
