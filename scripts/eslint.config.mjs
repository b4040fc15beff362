export { default } from '../eslint.dev.config.mjs';
