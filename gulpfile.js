const { src, dest, parallel } = require('gulp');

// tsc emits only JavaScript; n8n also needs the icons and the codex file next to the compiled node.
function copyIcons() {
	return src('icons/**/*.{png,svg}').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.json', { base: '.' }).pipe(dest('dist'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
