export * from './exec.js';
