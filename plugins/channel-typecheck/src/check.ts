/**
 * Type-checking a pair's merge with the TypeScript compiler API: the project's tsconfig (and the
 * projects it references) read from each tree, one program per tree and project through a
 * compiler host over `TreeFs`, SourceFiles shared between the four trees and across scans (keyed
 * by path and blob id, as a language service's document registry does), diagnostics only for the
 * files the two changes can affect (the files the merge changes and their importers).
 *
 * The merge is checked first; the base and the two sides only when the merge has errors there,
 * and only in those files. A merge error counts when neither side nor the base has it
 * (`compare.ts`).
 */
import type * as TS from 'typescript';
import { BlobTexts, normalizePath, TreeFs } from './tree-fs.js';
import { affectedFiles, changedPaths, newErrors, readerOf, type Diag, type PairListings } from './compare.js';

export { changedPaths, type PairListings } from './compare.js';

export type Ts = typeof TS;

let typescript: Promise<Ts | undefined> | undefined;

/** The compiler, loaded once on first use; undefined when it cannot be loaded. */
export function loadTypeScript(): Promise<Ts | undefined> {
  typescript ??= import('typescript').then(
    (m) => (m as unknown as { default?: Ts }).default ?? (m as unknown as Ts),
    () => undefined,
  );
  return typescript;
}

/** SourceFiles shared by every program of the process: a file unchanged between trees is parsed once. */
const sourceFiles = new Map<string, TS.SourceFile>();
const MAX_SOURCE_FILES = 100_000;

export interface Project {
  /** Absolute path of its tsconfig. */
  readonly config: string;
  readonly options: TS.CompilerOptions;
  readonly fileNames: readonly string[];
  readonly references?: readonly TS.ProjectReference[];
}

/** The tsconfig (and every project it references, depth first) of a tree; a string says why none. */
export function loadProjects(ts: Ts, fs: TreeFs, configRel: string): Project[] | string {
  const root = fs.absolute(configRel);
  if (!fs.fileExists(root)) return `no ${configRel} in the merged tree`;
  const out: Project[] = [];
  const seen = new Set<string>();
  let failure: string | undefined;
  const host: TS.ParseConfigFileHost = {
    useCaseSensitiveFileNames: true,
    getCurrentDirectory: () => fs.root,
    fileExists: (p) => fs.fileExists(p),
    readFile: (p) => fs.readFile(p),
    readDirectory: (dir, extensions, excludes, includes, depth) => matchFiles(ts, fs, dir, extensions, excludes, includes, depth),
    onUnRecoverableConfigFileDiagnostic: (d) => (failure = ts.flattenDiagnosticMessageText(d.messageText, ' ')),
  };
  const visit = (path: string): void => {
    if (seen.has(path) || seen.size > 64) return;
    seen.add(path);
    const parsed = ts.getParsedCommandLineOfConfigFile(path, { noEmit: true }, host);
    if (!parsed) return;
    // A config that is not JSON is not the project's config. One that extends a file that is not
    // there (a shared config from dependencies not installed) is read without it, the same way in
    // every tree, so what it changes is the same in the merge and in the sides.
    const unreadable = parsed.errors.find((e) => e.code < 2000 || e.code === 5092);
    if (unreadable) {
      failure ??= ts.flattenDiagnosticMessageText(unreadable.messageText, ' ');
      return;
    }
    out.push({
      config: path,
      options: parsed.options,
      fileNames: parsed.fileNames,
      ...(parsed.projectReferences ? { references: parsed.projectReferences } : {}),
    });
    for (const ref of parsed.projectReferences ?? []) visit(ts.resolveProjectReferencePath(ref));
  };
  visit(root);
  if (out.length === 0 || failure) return `${configRel} could not be read${failure ? `: ${failure}` : ''}`;
  return out;
}

type MatchFiles = (
  path: string,
  extensions: readonly string[] | undefined,
  excludes: readonly string[] | undefined,
  includes: readonly string[] | undefined,
  useCaseSensitiveFileNames: boolean,
  currentDirectory: string,
  depth: number | undefined,
  getFileSystemEntries: (path: string) => { files: readonly string[]; directories: readonly string[] },
  realpath: (path: string) => string,
) => string[];

function matchFiles(
  ts: Ts,
  fs: TreeFs,
  dir: string,
  extensions: readonly string[],
  excludes: readonly string[] | undefined,
  includes: readonly string[],
  depth: number | undefined,
): string[] {
  // The compiler's own matcher (what `ts.sys.readDirectory` uses), over the tree's entries.
  const match = (ts as unknown as { matchFiles?: MatchFiles }).matchFiles;
  if (match)
    return match(
      dir,
      extensions,
      excludes,
      includes,
      true,
      fs.root,
      depth,
      (p) => fs.entries(p),
      (p) => fs.realpath(p),
    );
  // Without it: every file of the tree under `dir` with one of the extensions.
  const rel = fs.relative(dir) ?? '';
  return [...fs.files.keys()]
    .filter((p) => (rel === '' || p.startsWith(rel + '/')) && extensions.some((e) => p.endsWith(e)) && !p.includes('node_modules/'))
    .map((p) => fs.absolute(p));
}

/** The check's time limit was reached. */
class TimeUp extends Error {}

function compilerHost(ts: Ts, fs: TreeFs, optionsKey: string, deadline: number): TS.CompilerHost {
  const host: TS.CompilerHost & { useSourceOfProjectReferenceRedirect(): boolean } = {
    getSourceFile(fileName, languageVersionOrOptions) {
      const version = fs.blobOf(fileName) ?? `disk:${fs.diskStamp(fileName) ?? ''}`;
      const lv = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions : { languageVersion: languageVersionOrOptions };
      const key = `${fileName}\0${version}\0${lv.languageVersion}\0${lv.impliedNodeFormat ?? ''}\0${optionsKey}`;
      const hit = sourceFiles.get(key);
      if (hit) return hit;
      // Parsing a project cold takes seconds: past the time limit, the check stops here, and what
      // it parsed stays for the next try.
      if (Date.now() > deadline) throw new TimeUp();
      const text = fs.readFile(fileName);
      if (text === undefined) return undefined;
      const sf = ts.createSourceFile(fileName, text, languageVersionOrOptions, false);
      if (sourceFiles.size >= MAX_SOURCE_FILES) sourceFiles.clear();
      sourceFiles.set(key, sf);
      return sf;
    },
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    writeFile: () => {},
    getCurrentDirectory: () => fs.root,
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (f) => fs.fileExists(f),
    readFile: (f) => fs.readFile(f),
    directoryExists: (d) => fs.directoryExists(d),
    getDirectories: (d) => fs.getDirectories(d),
    realpath: (p) => fs.realpath(p),
    // Referenced projects are read from their sources (as an editor does): their outputs are not in a tree.
    useSourceOfProjectReferenceRedirect: () => true,
  };
  return host;
}

export interface CheckInput {
  readonly ts: Ts;
  /** Absolute root the trees' files appear under (the repository's root). */
  readonly root: string;
  readonly trees: PairListings;
  readonly texts: BlobTexts;
  /** The tsconfig's path in the tree. */
  readonly tsconfig: string;
  /** How many steps of importers of a changed file are checked. */
  readonly importerDepth: number;
  readonly maxFiles: number;
  /** Date.now() past which the check stops (not checked: time limit). */
  readonly deadline: number;
}

/** Where the change that breaks a merged line is: a declaration (or file) one side changed. */
export interface BreakSite {
  readonly side: 'a' | 'b';
  readonly path: string;
  readonly name?: string;
  /** Lines of the declaration in the merged tree. */
  readonly lines?: readonly [number, number];
}

export interface NewError {
  readonly diag: Diag;
  /** The side whose version of the file holds the breaking line (its new code), when one does. */
  readonly reader?: 'a' | 'b';
  /** The line in the reader's own version of the file. */
  readonly readerLine?: number;
  readonly site?: BreakSite;
}

export type CheckResult =
  | {
      readonly status: 'checked';
      readonly config: string;
      readonly files: number;
      readonly truncated: number;
      readonly errors: readonly NewError[];
    }
  /** `quiet`: nothing to check (not a TypeScript project), said in evidence rather than as a problem. */
  | { readonly status: 'not-checked'; readonly reason: string; readonly quiet?: true };

const isSource = (rel: string) => /\.(?:[mc]?tsx?|[mc]?jsx?)$/.test(rel) && !rel.includes('node_modules/');

interface Built {
  readonly fs: TreeFs;
  readonly deadline: number;
  readonly projects: readonly Project[];
  readonly programs: Map<string, TS.Program>;
}

function programFor(ts: Ts, built: Built, project: Project, roots?: readonly string[]): TS.Program {
  const programKey = roots ? `${project.config}\0${roots.join('\0')}` : project.config;
  let p = built.programs.get(programKey);
  if (!p) {
    const options = { ...project.options, noEmit: true };
    const key = `${project.config}:${JSON.stringify(options)}`;
    p = ts.createProgram({
      rootNames: roots ?? project.fileNames,
      options,
      host: compilerHost(ts, built.fs, key, built.deadline),
      ...(project.references ? { projectReferences: project.references } : {}),
    });
    built.programs.set(programKey, p);
  }
  return p;
}

/** The project that owns a file: the first whose root files list it. */
function ownerOf(projects: readonly Project[], abs: string): Project | undefined {
  return projects.find((p) => p.fileNames.includes(abs));
}

function diagnosticsOf(ts: Ts, program: TS.Program, fs: TreeFs, rel: string, deadline: number): Diag[] | undefined {
  if (Date.now() > deadline) throw new TimeUp();
  const sf = program.getSourceFile(fs.absolute(rel));
  if (!sf) return undefined;
  const all = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
  const lines = sf.text.split(/\r?\n/);
  const out: Diag[] = [];
  for (const d of all) {
    // Configuration and program-structure errors (TS5xxx, TS6xxx: rootDir, project lists) are
    // about the build, not the code, and land on whichever file the program met first.
    if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined || (d.code >= 5000 && d.code < 7000)) continue;
    const line = sf.getLineAndCharacterOfPosition(d.start).line + 1;
    out.push({
      path: rel,
      line,
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      text: (lines[line - 1] ?? '').trim(),
      start: d.start,
    });
  }
  return out;
}

/** Files of the merge program that import `rel`'s file, by resolved module. */
function importersIndex(program: TS.Program, fs: TreeFs): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  type WithResolution = {
    getResolvedModuleFromModuleSpecifier?(
      lit: TS.StringLiteralLike,
      sf: TS.SourceFile,
    ): TS.ResolvedModuleWithFailedLookupLocations | undefined;
  };
  const resolve = (program as unknown as WithResolution).getResolvedModuleFromModuleSpecifier?.bind(program);
  for (const sf of program.getSourceFiles()) {
    const from = fs.relative(sf.fileName);
    if (from === undefined || !resolve) continue;
    const imports = (sf as unknown as { imports?: readonly TS.StringLiteralLike[] }).imports ?? [];
    for (const lit of imports) {
      const target = resolve(lit, sf)?.resolvedModule?.resolvedFileName;
      const to = target ? fs.relative(target) : undefined;
      if (to === undefined) continue;
      (index.get(to) ?? index.set(to, new Set()).get(to)!).add(from);
    }
  }
  return index;
}

/**
 * Type-checks the merge of a pair and reports the errors it has that neither side nor the base
 * has. Never throws for a project's faults: they are a `not-checked` reason.
 */
export function checkPair(input: CheckInput): CheckResult {
  const { ts, root, trees, texts, deadline } = input;
  const build = (files: ReadonlyMap<string, string>): Built | string => {
    const fs = new TreeFs(root, files, texts, ts.sys);
    const projects = loadProjects(ts, fs, input.tsconfig);
    return typeof projects === 'string' ? projects : { fs, projects, deadline, programs: new Map() };
  };
  try {
    if (!trees.merge.has(input.tsconfig) && !trees.a.has(input.tsconfig) && !trees.b.has(input.tsconfig))
      return { status: 'not-checked', reason: `no ${input.tsconfig} in the merged tree`, quiet: true };
    const merged = build(trees.merge);
    if (typeof merged === 'string') return { status: 'not-checked', reason: merged };
    const changed = [...changedPaths(trees.base, trees.merge)].filter((p) => isSource(p) && trees.merge.has(p));
    const config = input.tsconfig;
    if (changed.length === 0) return { status: 'checked', config, files: 0, truncated: 0, errors: [] };

    // The files to check (`affectedFiles`): what either side changed, and importers of both sides' changes.
    const owned = (rel: string) => ownerOf(merged.projects, merged.fs.absolute(rel));
    const ownChanged = changed.filter((p) => owned(p));
    const index = new Map<string, Set<string>>();
    if (input.importerDepth > 0 && ownChanged.length > 0) {
      const programs = new Set(ownChanged.map((p) => programFor(ts, merged, owned(p)!)));
      for (const program of programs)
        for (const [k, v] of importersIndex(program, merged.fs))
          for (const f of v) (index.get(k) ?? index.set(k, new Set()).get(k)!).add(f);
    }
    const affected = affectedFiles(ownChanged, trees, index, input.importerDepth, (f) => !!owned(f));
    const files = [...affected].slice(0, input.maxFiles);
    const truncated = affected.size - files.length;

    const mergeDiags = new Map<string, Diag[]>();
    for (const rel of files) {
      const d = diagnosticsOf(ts, programFor(ts, merged, owned(rel)!), merged.fs, rel, deadline);
      if (d && d.length > 0) mergeDiags.set(rel, d);
    }
    if (mergeDiags.size === 0) return { status: 'checked', config, files: files.length, truncated, errors: [] };

    // Errors in the merge: the same files in the base and each side, built only now.
    const others: Partial<Record<'base' | 'a' | 'b', Built | string>> = {};
    const erring = [...mergeDiags.keys()];
    const sideDiags = (which: 'base' | 'a' | 'b', rel: string): Diag[] => {
      const built = (others[which] ??= build(trees[which]));
      if (typeof built === 'string') return [];
      const owner = ownerOf(built.projects, built.fs.absolute(rel));
      if (!owner) return [];
      // Only the files the merge has errors in (what they import, and the project's declaration
      // files): the side's own errors there, without building the whole project again.
      const inOwner = erring.map((f) => built.fs.absolute(f)).filter((f) => owner.fileNames.includes(f));
      const roots = [...inOwner, ...owner.fileNames.filter((f) => f.endsWith('.d.ts'))];
      return diagnosticsOf(ts, programFor(ts, built, owner, roots), built.fs, rel, deadline) ?? [];
    };
    // The base first: an error it has too is never new (whatever the sides have), and most are
    // (a dependency not installed, a base that does not compile), so the sides are built only for
    // the files with errors the base lacks: the same verdict, often without building them at all.
    const baseDiags = new Map(erring.map((rel) => [rel, sideDiags('base', rel)] as const));
    const unexplained = erring.filter((rel) => newErrors(mergeDiags.get(rel)!, [baseDiags.get(rel)!]).length > 0);
    const errors: NewError[] = [];
    for (const rel of unexplained) {
      const fresh = newErrors(mergeDiags.get(rel)!, [baseDiags.get(rel)!, sideDiags('a', rel), sideDiags('b', rel)]);
      if (fresh.length === 0) continue;
      const program = programFor(ts, merged, owned(rel)!);
      for (const d of fresh) errors.push(explain(ts, program, merged.fs, d, trees));
    }
    return { status: 'checked', config, files: files.length, truncated, errors };
  } catch (e) {
    if (e instanceof TimeUp) return { status: 'not-checked', reason: 'time limit reached' };
    return { status: 'not-checked', reason: `the compiler failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** `checkPair` with the compiler loaded: in the thread that calls it (not checked when it is not installed). */
export async function checkWithCompiler(input: Omit<CheckInput, 'ts'>): Promise<CheckResult> {
  const ts = await loadTypeScript();
  return ts
    ? checkPair({ ...input, ts })
    : { status: 'not-checked', reason: 'the TypeScript compiler (npm package typescript) is not installed' };
}

/** Which side wrote the breaking line, and which change of the other side breaks it. */
function explain(ts: Ts, program: TS.Program, fs: TreeFs, d: Diag, trees: PairListings): NewError {
  const changedBy = (side: 'a' | 'b', rel: string) => trees[side].get(rel) !== trees.base.get(rel);
  const { reader, readerLine } = readerOf(d, trees, (id) => fs.text(id));
  const breaker: 'a' | 'b' | undefined = reader ? (reader === 'a' ? 'b' : 'a') : undefined;
  const known = (rel: string) => trees.merge.has(rel) || trees.base.has(rel);
  const site = breaker ? siteOf(ts, program, fs, d, (rel) => changedBy(breaker, rel), breaker, known) : undefined;
  return { diag: d, ...(reader ? { reader } : {}), ...(readerLine ? { readerLine } : {}), ...(site ? { site } : {}) };
}

/** The deepest node of `sf` that spans `pos`. */
function nodeAt(ts: Ts, sf: TS.SourceFile, pos: number): TS.Node {
  let node: TS.Node = sf;
  for (;;) {
    const child: TS.Node | undefined = ts.forEachChild(node, (c) => (c.getStart(sf) <= pos && pos < c.getEnd() ? c : undefined));
    if (!child) return node;
    node = child;
  }
}

/** The declaration around a node: what a reader would name. */
function declarationAround(ts: Ts, node: TS.Node): TS.Declaration | undefined {
  for (let n: TS.Node | undefined = node; n; n = n.parent) {
    if (
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isMethodSignature(n) ||
      ts.isPropertySignature(n) ||
      ts.isPropertyDeclaration(n) ||
      ts.isInterfaceDeclaration(n) ||
      ts.isClassDeclaration(n) ||
      ts.isTypeAliasDeclaration(n) ||
      ts.isEnumDeclaration(n) ||
      ts.isVariableDeclaration(n) ||
      ts.isConstructorDeclaration(n)
    )
      return n;
    if (ts.isSourceFile(n)) return undefined;
  }
  return undefined;
}

function nameOf(ts: Ts, decl: TS.Declaration): string | undefined {
  const own = ts.getNameOfDeclaration(decl);
  const name = own && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own)) ? own.text : undefined;
  if (ts.isConstructorDeclaration(decl)) return decl.parent.name ? `${decl.parent.name.text} constructor` : 'constructor';
  const parent = decl.parent;
  if (name && (ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent)) && parent.name) return `${parent.name.text}.${name}`;
  return name;
}

function siteOf(
  ts: Ts,
  program: TS.Program,
  fs: TreeFs,
  d: Diag,
  changed: (rel: string) => boolean,
  side: 'a' | 'b',
  known: (rel: string) => boolean,
): BreakSite | undefined {
  const sf = program.getSourceFile(fs.absolute(d.path));
  if (!sf) return undefined;
  const checker = program.getTypeChecker();
  const fromDecl = (decl: TS.Declaration | undefined): BreakSite | undefined => {
    if (!decl) return undefined;
    const file = decl.getSourceFile();
    const rel = fs.relative(file.fileName);
    if (rel === undefined || !changed(rel)) return undefined;
    const s = file.getLineAndCharacterOfPosition(decl.getStart(file)).line + 1;
    const e = file.getLineAndCharacterOfPosition(decl.getEnd()).line + 1;
    const name = nameOf(ts, decl);
    return { side, path: rel, ...(name ? { name } : {}), lines: [s, e] };
  };
  const symbolSite = (target: TS.Node): BreakSite | undefined => {
    let symbol = checker.getSymbolAtLocation(target);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    for (const decl of symbol?.declarations ?? []) {
      const site = fromDecl(decl);
      if (site) return site;
    }
    return undefined;
  };
  // 1. What the compiler points at itself ("'x' is declared here", "An argument for 'x' was not provided").
  const diagnostic = [...program.getSemanticDiagnostics(sf)].find((x) => x.start === d.start && x.code === d.code);
  for (const r of diagnostic?.relatedInformation ?? []) {
    if (!r.file || r.start === undefined) continue;
    const site = fromDecl(declarationAround(ts, nodeAt(ts, r.file, r.start)));
    if (site) return site;
  }
  // 2. The symbol at the error: a call's callee, an object literal's type, an imported name.
  const at = nodeAt(ts, sf, d.start);
  for (let n: TS.Node | undefined = at, i = 0; n && i < 6; n = n.parent, i++) {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const site = symbolSite(ts.isPropertyAccessExpression(n.expression) ? n.expression.name : n.expression);
      if (site) return site;
    }
    if (ts.isObjectLiteralExpression(n)) {
      const decl = checker.getContextualType(n)?.getSymbol()?.declarations?.[0];
      const site = fromDecl(decl);
      if (site) return site;
    }
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) {
      const spec = n.moduleSpecifier;
      const file = spec ? checker.getSymbolAtLocation(spec)?.valueDeclaration : undefined;
      const rel = file && ts.isSourceFile(file) ? fs.relative(file.fileName) : undefined;
      if (rel !== undefined && changed(rel)) return { side, path: rel };
      const name = spec && ts.isStringLiteral(spec) ? resolveRelative(known, d.path, spec.text) : undefined;
      if (name && changed(name)) return { side, path: name };
    }
    if (ts.isIdentifier(n) || ts.isPropertyAccessExpression(n)) {
      const site = symbolSite(ts.isPropertyAccessExpression(n) ? n.name : n);
      if (site) return site;
    }
  }
  // 3. Any name in the erroring statement whose definition the other side changed (a call whose
  //    return type changed, assigned to a declared type).
  let statement: TS.Node | undefined = at;
  while (statement && !ts.isSourceFile(statement) && !(ts.isStatement(statement) || ts.isClassElement(statement)))
    statement = statement.parent;
  let found: BreakSite | undefined;
  const visit = (n: TS.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n)) found = symbolSite(n);
    else ts.forEachChild(n, visit);
  };
  if (statement && !ts.isSourceFile(statement)) visit(statement);
  return found;
}

/** A relative specifier's file in the merged tree or the base (extensions as TypeScript tries them). */
function resolveRelative(known: (rel: string) => boolean, from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '.';
  const base = normalizePath(`${dir}/${spec}`).replace(/\.(?:[mc]?js|jsx)$/, '');
  for (const ext of ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mts', '.cts', '/index.ts', '/index.js'])
    if (known(base + ext)) return base + ext;
  return undefined;
}
