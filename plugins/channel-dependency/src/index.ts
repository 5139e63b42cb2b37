export * from './dependency.js';
export { reach, chainTo, type Reach, type ReachEntry, type ReachFactors } from './reach.js';
export { default } from './dependency.js';
