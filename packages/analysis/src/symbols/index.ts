export * from './resolve.js';
export * from './working-set.js';
export * from './service.js';
