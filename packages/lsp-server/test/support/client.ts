/** A minimal LSP client over stdio for driving the built server in tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  PublishDiagnosticsNotification,
  type ClientCapabilities,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';

export const uriOf = (path: string): string => pathToFileURL(path).href;

/** A protocol client over any pair of streams (a child's stdio, or an in-process server's). */
export class ProtocolClient {
  readonly connection: ProtocolConnection;
  readonly diagnostics = new Map<string, Diagnostic[]>();
  /** Every publishDiagnostics, in order. */
  readonly pushes: PublishDiagnosticsParams[] = [];
  /** Everything the server wrote to stdout, as received. */
  raw = '';
  readonly notifications: { method: string; params: unknown }[] = [];
  readonly requests: { method: string; params: unknown }[] = [];
  stderr = '';
  private listeners: (() => void)[] = [];

  constructor(
    /** The raw stream to the server (tests write malformed frames to it). */
    readonly toServer: Writable,
    fromServer: Readable,
  ) {
    this.connection = createProtocolConnection(new StreamMessageReader(fromServer), new StreamMessageWriter(toServer));
    fromServer.on('data', (d: Buffer) => (this.raw += d.toString('utf8')));
    this.connection.onNotification(PublishDiagnosticsNotification.type, (p: PublishDiagnosticsParams) => {
      this.diagnostics.set(p.uri, p.diagnostics);
      this.pushes.push(p);
      this.poke();
    });
    for (const method of ['airspace/advisories', 'window/showMessage', 'window/logMessage']) {
      this.connection.onNotification(method, (params: unknown) => {
        this.notifications.push({ method, params });
        this.poke();
      });
    }
    const answers: Record<string, unknown> = {
      'workspace/configuration': [null],
      'window/showDocument': { success: true },
      'workspace/diagnostic/refresh': null,
      'workspace/codeLens/refresh': null,
      'client/registerCapability': null,
      'window/showMessageRequest': null,
    };
    for (const [method, answer] of Object.entries(answers)) {
      this.connection.onRequest(method, (params: unknown) => {
        this.requests.push({ method, params });
        this.poke();
        return answer;
      });
    }
    this.connection.listen();
  }

  protected poke(): void {
    for (const l of this.listeners) l();
  }

  /** Waits until `check` returns a value (re-checked on every message), or fails after `ms`. */
  until<T>(what: string, check: () => T | undefined, ms = 40_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const first = check();
      if (first !== undefined) return resolve(first);
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr.slice(-2000)}`));
      }, ms);
      const listener = () => {
        const v = check();
        if (v === undefined) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(v);
      };
      this.listeners.push(listener);
    });
  }

  async initialize(folders: string[], capabilities: ClientCapabilities = {}, initializationOptions?: unknown): Promise<unknown> {
    const result = await this.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities,
      workspaceFolders: folders.map((f) => ({ uri: uriOf(f), name: f })),
      ...(initializationOptions ? { initializationOptions } : {}),
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  open(path: string, text: string, version = 0): Promise<void> {
    return this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: uriOf(path), languageId: 'typescript', version, text },
    });
  }

  change(path: string, text: string, version: number): Promise<void> {
    return this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: uriOf(path), version },
      contentChanges: [{ text }],
    });
  }

  save(path: string): Promise<void> {
    return this.connection.sendNotification('textDocument/didSave', { textDocument: { uri: uriOf(path) } });
  }

  async close(): Promise<void> {
    try {
      // A refused shutdown (already shut down, not initialized) still ends in exit.
      await Promise.race([this.connection.sendRequest('shutdown').catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
      await this.connection.sendNotification('exit');
    } catch {
      /* already gone */
    }
    this.connection.dispose();
  }
}

/** The built server as a child process over stdio. */
export class TestClient extends ProtocolClient {
  readonly child: ChildProcess;

  constructor(command: string, args: string[], env: Record<string, string> = {}) {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    super(child.stdin!, child.stdout!);
    this.child = child;
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
      this.poke();
    });
  }

  override async close(): Promise<void> {
    await super.close();
    this.child.kill();
  }
}
