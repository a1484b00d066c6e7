import { describe, it, expect } from "vitest";
import { render, screen, fireEvent, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import WaitingQueue from "../components/WaitingQueue.svelte";
import MachinesBar from "../components/MachinesBar.svelte";
import SettingsView from "../views/SettingsView.svelte";
import type { MachineStatus } from "./bindings";
import { gateRequest } from "../test-fixtures";
import { loadMachines, machines, shortId, placeRef } from "./machines.svelte";

const machine = (over: Partial<MachineStatus> = {}): MachineStatus => ({
  name: "lab",
  ssh: "me@lab",
  forwardAgent: false,
  state: "connected",
  since: "2026-11-26T04:12:00Z",
  problem: null,
  nextTry: null,
  version: "0.1.0",
  lastSeen: null,
  ...over,
});

const request = gateRequest;

const remote = request({ id: "@lab/req-9", machine: "lab", sessionId: "@lab/0badc0de-1111-2222-3333-444455556666", cwd: "/srv/lab/api", plan: "# Plan: migrate the lab db\n" });

describe("machines", () => {
  it("names each request's machine and offers no decision on an unreachable one, saying why", async () => {
    let states = [machine({ state: "unreachable", problem: { kind: "unreachable", message: "the connection to lab dropped" } })];
    const decided: string[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_machines") return states;
      if (cmd === "list_pending") return [request(), remote];
      if (cmd === "decide_request") {
        decided.push(args.id);
        return { requestId: args.id, delivered: true, message: "Delivered.", status: "approved", delivery: "delivered" };
      }
    }, { shouldMockEvents: true });
    await loadMachines();
    render(WaitingQueue);
    const rows = await screen.findAllByTestId("gate-request");
    expect(rows).toHaveLength(2);
    const lab = rows.find((r) => r.dataset.machine === "lab")!;
    expect(lab.querySelector("[data-testid=machine-badge]")).toHaveTextContent(/lab · unreachable since \d\d:\d\d/);
    // The agent's session as that machine knows it, not the namespaced id.
    expect(lab).toHaveTextContent("session 0badc0de");
    for (const b of ["gate-approve-auto", "gate-approve-manual", "gate-edit", "gate-reject"]) {
      expect(lab.querySelector(`[data-testid=${b}]`)).toBeDisabled();
    }
    expect(lab.querySelector("[data-testid=gate-machine-off]")).toHaveTextContent(/lab is unreachable since \d\d:\d\d: a decision is not sent, nor queued/);
    // This machine's request is decidable as ever.
    const here = rows.find((r) => !r.dataset.machine)!;
    expect(here.querySelector("[data-testid=machine-badge]")).toBeNull();
    expect(here.querySelector("[data-testid=gate-approve-auto]")).toBeEnabled();

    // The machine comes back: its request can be decided, and the decision names its id.
    states = [machine()];
    await emit("machines:changed", states);
    await waitFor(() => expect(lab.querySelector("[data-testid=gate-approve-auto]")).toBeEnabled());
    await fireEvent.click(lab.querySelector("[data-testid=gate-approve-auto]")!);
    await waitFor(() => expect(decided).toEqual(["@lab/req-9"]));
  });

  it("filters every list by machine from the bar, which says how each machine is", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_machines") return [machine(), machine({ name: "box", ssh: "box", state: "unreachable" })];
      if (cmd === "list_pending") return [request(), remote];
    }, { shouldMockEvents: true });
    await loadMachines();
    render(MachinesBar);
    render(WaitingQueue);
    expect(await screen.findAllByTestId("gate-request")).toHaveLength(2);
    const statuses = screen.getAllByTestId("machine-status");
    expect(statuses.map((s) => s.dataset.state)).toEqual(["connected", "unreachable"]);
    expect(statuses[1]).toHaveTextContent(/box unreachable since \d\d:\d\d/);
    const filter = screen.getByTestId("machine-filter") as HTMLSelectElement;
    await fireEvent.change(filter, { target: { value: "here" } });
    await waitFor(() => expect(screen.getAllByTestId("gate-request")).toHaveLength(1));
    expect(screen.getByTestId("gate-request").dataset.machine).toBeUndefined();
    await fireEvent.change(filter, { target: { value: "lab" } });
    await waitFor(() => expect(screen.getByTestId("gate-request").dataset.machine).toBe("lab"));
    expect(machines.filter).toBe("lab");
  });

  it("adds a machine from Settings with its name and ssh destination, and lists its state", async () => {
    const added: any[] = [];
    let list: MachineStatus[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_machines") return list;
      if (cmd === "add_machine") {
        added.push(args);
        list = [machine({ name: args.name, ssh: args.ssh, state: "connecting" })];
        return list[0];
      }
      if (cmd === "list_agents") return [];
      return null;
    }, { shouldMockEvents: true });
    render(SettingsView, { overview: null });
    await fireEvent.input(await screen.findByTestId("machine-name"), { target: { value: "lab" } });
    await fireEvent.input(screen.getByTestId("machine-ssh"), { target: { value: "me@lab.example" } });
    await fireEvent.click(screen.getByTestId("machine-add-submit"));
    await waitFor(() => expect(added).toEqual([{ name: "lab", ssh: "me@lab.example", forwardAgent: false }]));
    const row = await screen.findByTestId("machine-row");
    expect(row).toHaveTextContent("Connecting…");
    await emit("machines:changed", [machine({ name: "lab", ssh: "me@lab.example", state: "unreachable", problem: { kind: "refused", message: "refused: the host key of lab CHANGED" } })]);
    await waitFor(() => expect(screen.getByTestId("machine-state")).toHaveTextContent(/Unreachable since \d\d:\d\d/));
    expect(screen.getByTestId("machine-state")).toHaveTextContent("host key of lab CHANGED");
    expect(screen.getByTestId("machine-reconnect")).toBeInTheDocument();
    expect(screen.queryByTestId("machine-agent")).toBeNull();
  });

  it("counts down to an unreachable machine's next try, and suggests an ssh:// destination with a port", async () => {
    const nextTry = new Date(Date.now() + 40_000).toISOString();
    mockIPC((cmd) => {
      if (cmd === "list_machines") return [machine({ state: "unreachable", nextTry })];
      return null;
    }, { shouldMockEvents: true });
    render(SettingsView, { overview: null });
    const next = await screen.findByTestId("machine-next-try");
    expect(next.textContent).toMatch(/next try in (39|40) s/);
    await waitFor(() => expect(next.textContent).toMatch(/next try in 3[0-8] s/), { timeout: 4000 });
    expect(screen.getByTestId("machine-ssh")).toHaveAttribute("placeholder", expect.stringContaining("ssh://me@lab:2222"));
  });

  it("forwards the ssh agent to a machine only when the person ticks it, and says so on its row", async () => {
    const added: any[] = [];
    let list: MachineStatus[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_machines") return list;
      if (cmd === "add_machine") {
        added.push(args);
        list = [machine({ name: args.name, ssh: args.ssh, forwardAgent: args.forwardAgent, state: "connecting" })];
        return list[0];
      }
      if (cmd === "list_agents") return [];
      return null;
    }, { shouldMockEvents: true });
    render(SettingsView, { overview: null });
    await fireEvent.input(await screen.findByTestId("machine-name"), { target: { value: "lab" } });
    await fireEvent.input(screen.getByTestId("machine-ssh"), { target: { value: "me@lab.example" } });
    await fireEvent.click(screen.getByTestId("machine-forward-agent"));
    await fireEvent.click(screen.getByTestId("machine-add-submit"));
    await waitFor(() => expect(added).toEqual([{ name: "lab", ssh: "me@lab.example", forwardAgent: true }]));
    expect(await screen.findByTestId("machine-agent")).toHaveTextContent("agent forwarded");
  });

  it("reads an id as its machine knows it and tells two machines' same path apart", () => {
    expect(shortId("@lab/0badc0de-1111")).toBe("0badc0de");
    expect(shortId("fecae38a-0653")).toBe("fecae38a");
    // A path here is itself; the same path on a machine is that machine's, and the same each time.
    expect(placeRef("/h/p.md", null)).toBe("/h/p.md");
    expect(placeRef("/h/p.md")).toBe("/h/p.md");
    expect(placeRef("/h/p.md", "lab")).toBe("@lab:/h/p.md");
    expect(placeRef("/h/p.md", "lab")).toBe(placeRef("/h/p.md", "lab"));
    expect(placeRef("/h/p.md", "lab")).not.toBe(placeRef("/h/p.md", "box"));
  });
});
