/**
 * What the view's page exposes to the browser tests as `window.airspaceView` (declared by the
 * client in `packages/view/src/client/main.ts`, which is bundled, not a typed export): the part
 * the tests read.
 */
export {};

declare global {
  interface Window {
    airspaceView: {
      readonly webgl: boolean;
      readonly frames: number;
      readonly updates: number;
      screenPositionOf(agentId: string): { x: number; y: number } | null;
      screenPositionOfFile(path: string): { x: number; y: number } | null;
    };
  }
}
