import { config } from '@n8n/node-cli/eslint';

// n8n's community-node rules (the Cloud variant, the strictest) plus eslint-plugin-n8n-nodes-base.
// Tests, the simulator and scripts are dev-only code and are not part of the published package.
export default [
	{ ignores: ['dist/**', 'test/**', 'scripts/**', 'node_modules/**', '*.js', '*.mjs'] },
	...config,
];
