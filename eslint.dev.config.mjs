import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Dev-only code (tests, the simulator, the real-n8n suites, the benchmark): not published, so n8n's
// community-node rules (no Node globals, no console, imports only from n8n-workflow) do not apply. It gets
// the recommended JavaScript and TypeScript rules instead. The published code (nodes/, credentials/) is
// linted with n8n's Cloud config, unchanged, in eslint.config.mjs.
export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**'] },
	{
		files: ['test/**/*.ts', 'scripts/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		languageOptions: { globals: { ...globals.node, ...globals.jest } },
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
);
