export { renderViewHtml, type RenderViewOptions } from './html.js';
export { allowedHostHeaders, isLoopbackHost, startViewServer, type ViewServer, type ViewServerOptions } from './server.js';
export * from './scene-model.js';
