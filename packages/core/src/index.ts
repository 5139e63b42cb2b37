export * from './model.js';
export * from './channel.js';
export * from './scan-types.js';
export * from './errors.js';
