export * from './dependency.js';
export { reach, chainTo, type Reach, type ReachEntry } from './reach.js';
export { default } from './dependency.js';
