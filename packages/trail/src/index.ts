export * from './canonical.js';
export * from './errors.js';
export * from './observation.js';
export * from './advisory.js';
export * from './types.js';
export * from './trail.js';
export { receiptHash, verifyShadowTrail, verifyShadowTrailText } from './verify.js';
export type { VerifyOptions, VerifyResult, VerifySuccess } from './verify.js';
export * from './file.js';
