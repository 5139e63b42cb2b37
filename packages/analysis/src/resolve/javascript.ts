/**
 * JavaScript and TypeScript module resolution: relative specifiers (extension and `index`
 * probing), the nearest tsconfig's `paths` and `baseUrl`, workspace packages by name, then
 * external.
 */
import { dirname, join, normalizeInside } from './paths.js';
import type { Probes } from './probe.js';
import type { Resolution } from './resolution.js';
import type { TsConfig } from './tsconfig.js';
import { resolvePackage, splitPackage, type WorkspacePackage } from './workspaces.js';

const NODE_BUILTINS = new Set(
  'assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test'.split(
    ' ',
  ),
);

/** What a JavaScript resolution looks at, built once per resolver. */
export interface JsResolution {
  readonly probes: Probes;
  readonly tsconfigFor: (importer: string) => TsConfig | null;
  readonly packageByName: ReadonlyMap<string, WorkspacePackage>;
}

/**
 * JavaScript/TypeScript, in order: relative specifiers, the importer's tsconfig `paths` and
 * `baseUrl`, workspace packages by name, then external (Node built-ins as `node:<name>`).
 */
export function resolveJs(importer: string, spec: string, where: JsResolution): Resolution {
  const { probes, tsconfigFor, packageByName } = where;
  const probe = probes.module;
  if (spec === '') return { status: 'unresolved', reason: 'empty specifier' };
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
    const base = normalizeInside(join(dirname(importer), spec));
    if (base === undefined) return { status: 'unresolved', reason: `${spec} leaves the repository` };
    const hit = probe(base);
    return hit
      ? { status: 'resolved', targets: [hit], via: 'relative' }
      : { status: 'unresolved', reason: `no file for ${spec} (tried extensions and index files)` };
  }
  if (spec.startsWith('/')) return { status: 'unresolved', reason: `absolute path ${spec}` };
  if (spec.startsWith('node:')) return { status: 'external', package: spec };
  const cfg = tsconfigFor(importer);
  if (cfg?.paths) {
    for (const p of cfg.paths) {
      const matches = p.wildcard
        ? spec.startsWith(p.prefix) && spec.endsWith(p.suffix) && spec.length >= p.prefix.length + p.suffix.length
        : spec === p.prefix;
      if (!matches) continue;
      const star = p.wildcard ? spec.slice(p.prefix.length, spec.length - p.suffix.length) : '';
      for (const t of p.targets) {
        const target = normalizeInside(join(cfg.pathsBase ?? cfg.dir, t.replace('*', star)));
        const hit = target !== undefined ? probe(target) : undefined;
        if (hit) return { status: 'resolved', targets: [hit], via: 'tsconfig-paths' };
      }
    }
  }
  if (cfg?.baseUrl !== undefined) {
    const hit = probe(join(cfg.baseUrl, spec));
    if (hit) return { status: 'resolved', targets: [hit], via: 'base-url' };
  }
  const { name, subpath } = splitPackage(spec);
  const pkg = packageByName.get(name);
  if (pkg) {
    const hit = resolvePackage(pkg, subpath, probes);
    return hit
      ? { status: 'resolved', targets: [hit], via: 'workspace' }
      : { status: 'unresolved', reason: `workspace package ${name} (${pkg.dir || '.'}) has no file for ${subpath}` };
  }
  if (NODE_BUILTINS.has(name)) return { status: 'external', package: `node:${name}` };
  return { status: 'external', package: name };
}
