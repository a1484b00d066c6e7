// The other machines (`plandeck hosts`) and how each is now, as core says (`list_machines`, then
// every `machines:changed`), and the machine filter every view's lists share.
//
// A row of another machine names it (`row.machine`); while that machine is unreachable its rows
// are what it last said: shown greyed, and no decision is offered on them (core refuses one
// anyway: nothing is queued to go later).

import { ipc, on, type MachineStatus } from "./ipc";

const known = $state<{ list: MachineStatus[]; filter: string }>({ list: [], filter: "all" });
let asked: Promise<MachineStatus[]> | null = null;
let stop: (() => void) | null = null;

/** The machines (empty before they are loaded, and when there are none). */
export const machines = {
  get list(): MachineStatus[] {
    return known.list;
  },
  /** "all", "here" (this machine only) or a machine's name. */
  get filter(): string {
    return known.filter;
  },
  set filter(f: string) {
    known.filter = f;
  },
};

/** Asks core for the machines once, then follows their changes. */
export function loadMachines(): Promise<MachineStatus[]> {
  stop ??= on("machines:changed", (list) => {
    known.list = Array.isArray(list) ? list : [];
    // A machine removed: its filter goes with it.
    if (!["all", "here"].includes(known.filter) && !known.list.some((m) => m.name === known.filter)) known.filter = "all";
  });
  asked ??= ipc.listMachines().then(
    (list) => {
      known.list = Array.isArray(list) ? list : [];
      return known.list;
    },
    () => {
      asked = null;
      return known.list;
    },
  );
  return asked;
}

/** Sets the list (after an add or a remove answered), without waiting for the event. */
export function setMachines(list: MachineStatus[]) {
  known.list = list;
}

/** Forgets everything (tests start each case afresh). */
export function forgetMachines() {
  stop?.();
  stop = null;
  asked = null;
  known.list = [];
  known.filter = "all";
}

/** The machine `name`'s status (`null`/undefined name: this machine, no status). */
export function machineOf(name: string | null | undefined): MachineStatus | undefined {
  return name ? known.list.find((m) => m.name === name) : undefined;
}

/** Whether a row of `name` is what its machine last said, not what it says now. */
export function isStale(name: string | null | undefined): boolean {
  const m = machineOf(name);
  return !!m && m.state !== "connected";
}

/** Whether the shared filter shows rows of `name` (null: this machine). */
export function shownOn(name: string | null | undefined): boolean {
  const f = known.filter;
  if (f === "all") return true;
  if (f === "here") return !name;
  return name === f;
}

/** "14:02", the time of an RFC 3339 moment, on this computer's clock. */
export function clock(at: string | null | undefined): string {
  if (!at) return "";
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

/** Why a decision on a row of `name` is not offered now (undefined: it is). */
export function notDecidable(name: string | null | undefined): string | undefined {
  const m = machineOf(name);
  if (!m || m.state === "connected") return undefined;
  if (m.state === "connecting") return `${m.name} is connecting: decide once it is connected.`;
  return `${m.name} is unreachable since ${clock(m.since)}: a decision is not sent, nor queued to go later.`;
}

/** A plan's place for "open this plan" links: its path, and its machine when another's (two
 * machines may hold the same path). */
export function placeRef(path: string, machine?: string | null): string {
  return machine ? `@${machine}:${path}` : path;
}

/** An id as its machine knows it (`@lab/abc` → `abc`): what a person reads, short. */
export function shortId(id: string, length = 8): string {
  const own = id.startsWith("@") && id.includes("/") ? id.slice(id.indexOf("/") + 1) : id;
  return own.slice(0, length);
}
