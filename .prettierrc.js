// n8n's own Prettier settings (.prettierrc.js at the root of n8n-io/n8n).
module.exports = {
	singleQuote: true,
	useTabs: true,
	trailingComma: 'all',
	printWidth: 120,
};
