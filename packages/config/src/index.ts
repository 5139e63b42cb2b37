export * from './config.js';
export * from './plugins.js';
export * from './channel-set.js';
export * from './calibration.js';
