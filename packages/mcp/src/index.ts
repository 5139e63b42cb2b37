export { createAirspaceMcpServer, runMcpServer, type McpServerOptions } from './server.js';
export { createBackend, type Backend } from './backend.js';
