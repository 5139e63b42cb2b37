export * from './cochange.js';
export { default } from './cochange.js';
