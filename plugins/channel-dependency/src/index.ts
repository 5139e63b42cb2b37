export * from './dependency.js';
export { reach, chainTo, slotOf, type GraphIndex, type ReachLog, type Steps, type SpecialNeighbours } from './reach.js';
export { default } from './dependency.js';
