// Typed calls into the Rust shell. Types come from ./bindings (generated from Rust); this file only
// names the commands and their argument shapes. Every command rejects with an IpcError
// `{kind, message}`: branch on `kind`, show `message`.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { ErrorKind, IpcError, Overview } from "./bindings";

export type * from "./bindings";

export function isIpcError(e: unknown): e is IpcError {
  return typeof e === "object" && e !== null && "kind" in e && "message" in e;
}

/** Turns anything thrown by `invoke` into an IpcError. */
export function toIpcError(e: unknown): IpcError {
  if (isIpcError(e)) return e;
  return { kind: "internal" as ErrorKind, message: e instanceof Error ? e.message : String(e) };
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    throw toIpcError(e);
  }
}

export const ipc = {
  getOverview: () => call<Overview>("get_overview"),
  loadDemo: () => call<Overview>("load_demo"),
};

/** The events the shell emits; payloads are typed by their bindings. */
export type EventName = "app:roots-changed";

/** Listens to `name` until the returned function is called (call it when a component is destroyed). */
export function on<T>(name: EventName, handler: (payload: T) => void): () => void {
  let unlisten: UnlistenFn | undefined;
  let stopped = false;
  listen<T>(name, (e) => handler(e.payload))
    .then((u) => {
      if (stopped) u();
      else unlisten = u;
    })
    .catch((e) => console.warn(`cannot listen to ${name}`, e));
  return () => {
    stopped = true;
    unlisten?.();
  };
}
