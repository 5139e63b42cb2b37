export * from './pastconflicts.js';
export { default } from './pastconflicts.js';
