import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import PhoneSettings from "./PhoneSettings.svelte";

const on = {
  on: true,
  running: true,
  listen: "100.64.0.7:8443",
  cert: "/c/m.pem",
  key: "/c/m.key",
  name: null,
  url: "https://100.64.0.7:8443/",
  by: "plandeck serve --daemon (pid 7)",
  error: null,
  allInterfaces: false,
  waitMinutes: 15,
  devices: [
    { id: "aaaa", name: "<img src=x onerror=alert(1)>", pairedAt: "2026-01-01T00:00:00Z", lastSeen: null, revoked: false },
    { id: "bbbb", name: "Old", pairedAt: "2026-01-01T00:00:00Z", lastSeen: null, revoked: true },
  ],
};

describe("PhoneSettings", () => {
  it("shows a phone's name as text, lists only phones not revoked, and revokes one by its id once confirmed", async () => {
    const calls: [string, any][] = [];
    let status: any = on;
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "phone_status") return status;
      if (cmd === "phone_revoke") {
        status = { ...on, devices: on.devices.map((d) => ({ ...d, revoked: true })) };
        return status;
      }
    });
    render(PhoneSettings);
    const row = await screen.findByTestId("phone-device");
    expect(row).toHaveTextContent("<img src=x onerror=alert(1)>");
    expect(row.querySelector("img")).toBeNull();
    expect(screen.getAllByTestId("phone-device")).toHaveLength(1);
    expect(screen.getByTestId("phone-state")).toHaveTextContent("served by plandeck serve --daemon (pid 7)");

    // One click asks, here; only the second revokes.
    await fireEvent.click(within(row).getByTestId("phone-revoke"));
    expect(calls.some(([c]) => c === "phone_revoke")).toBe(false);
    await fireEvent.click(within(row).getByText("Cancel"));
    await fireEvent.click(within(row).getByTestId("phone-revoke"));
    await fireEvent.click(within(row).getByTestId("phone-revoke-confirm"));
    await waitFor(() => expect(calls.find(([c]) => c === "phone_revoke")?.[1]).toEqual({ id: "aaaa" }));
    await screen.findByTestId("phone-no-devices");
  });

  it("says plainly when the address typed is every interface, and when the page listens on all of them", async () => {
    mockIPC((cmd) => {
      if (cmd === "phone_status") return { ...on, listen: "0.0.0.0:8443", allInterfaces: true, devices: [] };
    });
    render(PhoneSettings);
    expect(await screen.findByTestId("phone-all-interfaces")).toHaveTextContent("ALL interfaces");
    expect(await screen.findByTestId("phone-every-interface")).toHaveTextContent("every interface of this machine");
    const listen = screen.getByTestId("phone-listen") as HTMLInputElement;
    await fireEvent.input(listen, { target: { value: "100.64.0.7:8443" } });
    expect(screen.queryByTestId("phone-every-interface")).toBeNull();
  });

  it("fills the certificate and the key from the native file picker, and leaves a field as it was when cancelled", async () => {
    const asked: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "phone_status") return { ...on, on: false, running: false, cert: null, key: null, devices: [] };
      if (cmd === "phone_pick_file") {
        asked.push(args);
        return args.what === "cert" ? "/home/dev/certs/box.pem" : null;
      }
    });
    render(PhoneSettings);
    const cert = (await screen.findByTestId("phone-cert")) as HTMLInputElement;
    const key = screen.getByTestId("phone-key") as HTMLInputElement;
    await screen.findByTestId("phone-state");
    await fireEvent.click(screen.getByTestId("phone-cert-choose"));
    await waitFor(() => expect(cert.value).toBe("/home/dev/certs/box.pem"));
    await fireEvent.input(key, { target: { value: "/typed/box.key" } });
    await fireEvent.click(screen.getByTestId("phone-key-choose"));
    await waitFor(() => expect(asked).toEqual([{ what: "cert" }, { what: "key" }]));
    expect(key.value).toBe("/typed/box.key");
  });

  it("says when the page is on Tailscale, answering only the user's own devices", async () => {
    mockIPC((cmd) => {
      if (cmd === "phone_status") return { ...on, tailscale: true, devices: [] };
    });
    render(PhoneSettings);
    expect(await screen.findByTestId("phone-tailscale")).toHaveTextContent("checked by whois");
  });

  it("says nothing of Tailscale when the page is on an address named", async () => {
    mockIPC((cmd) => {
      if (cmd === "phone_status") return { ...on, tailscale: false, devices: [] };
    });
    render(PhoneSettings);
    await screen.findByTestId("phone-state");
    expect(screen.queryByTestId("phone-tailscale")).toBeNull();
  });

  it("offers this machine's Tailscale with its address and name when it runs, and turns the page on there through its own command", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "phone_status") return { ...on, on: false, running: false, listen: null, cert: null, key: null, url: null, by: null, tailscale: false, devices: [] };
      if (cmd === "phone_tailscale") return { running: true, ip: "100.64.0.7", name: "box.tail1234.ts.net", reason: null };
      if (cmd === "phone_on_tailscale")
        return { ...on, listen: "100.64.0.7:9443", name: "box.tail1234.ts.net", url: "https://box.tail1234.ts.net:9443/", tailscale: true, devices: [] };
    });
    render(PhoneSettings);
    const choice = (await screen.findByTestId("phone-where-tailscale")) as HTMLInputElement;
    expect(choice.closest("label")).toHaveTextContent("Tailscale (100.64.0.7, box.tail1234.ts.net)");
    // Chosen first while the page is off; the typed form is not shown, nor asked for.
    expect(choice.checked).toBe(true);
    expect(screen.queryByTestId("phone-listen")).toBeNull();
    await fireEvent.input(screen.getByTestId("phone-port"), { target: { value: "9443" } });
    await fireEvent.click(screen.getByTestId("phone-on"));
    await waitFor(() => expect(calls.find(([c]) => c === "phone_on_tailscale")?.[1]).toEqual({ port: 9443, waitMinutes: 15 }));
    expect(calls.some(([c]) => c === "phone_on")).toBe(false);
    expect(await screen.findByTestId("phone-tailscale")).toHaveTextContent("checked by whois");
    // The typed address is still there to choose.
    await fireEvent.click(screen.getByTestId("phone-where-typed"));
    expect(await screen.findByTestId("phone-listen")).toBeInTheDocument();
    expect(screen.queryByTestId("phone-port")).toBeNull();
  });

  it("says plainly when Tailscale is not running, offering the typed address only", async () => {
    mockIPC((cmd) => {
      if (cmd === "phone_status") return { ...on, on: false, running: false, tailscale: false, devices: [] };
      if (cmd === "phone_tailscale")
        return { running: false, ip: null, name: null, reason: "Tailscale is not running on this machine (its state: Stopped)" };
    });
    render(PhoneSettings);
    expect(await screen.findByTestId("phone-no-tailscale")).toHaveTextContent(
      "Tailscale is not available here: Tailscale is not running on this machine (its state: Stopped)",
    );
    expect(screen.queryByTestId("phone-where-tailscale")).toBeNull();
    expect((screen.getByTestId("phone-where-typed") as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId("phone-listen")).toBeInTheDocument();
  });

  it("keeps the typed address chosen while the page is on there, though Tailscale runs", async () => {
    mockIPC((cmd) => {
      if (cmd === "phone_status") return { ...on, tailscale: false, devices: [] };
      if (cmd === "phone_tailscale") return { running: true, ip: "100.64.0.7", name: "box.tail1234.ts.net", reason: null };
    });
    render(PhoneSettings);
    const choice = (await screen.findByTestId("phone-where-tailscale")) as HTMLInputElement;
    expect(choice.checked).toBe(false);
    expect((screen.getByTestId("phone-listen") as HTMLInputElement).value).toBe("100.64.0.7:8443");
  });
});
