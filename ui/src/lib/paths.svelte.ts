// How the window writes a path: under the home folder as `~/…`, and, where it must be cut, cut in
// the middle (components/PathText.svelte) so that its end, which tells paths apart, stays visible.

/** The home folder the app resolved its roots from (App sets it from the overview). */
export const where = $state({ home: "" });

/** `path` with the home folder written as `~` (only a whole leading folder: `/home/ann2` is not
 * under `/home/ann`). */
export function tilde(path: string | null | undefined, home: string = where.home): string {
  // A path not known (yet: a view drawn before its data arrived) is written as nothing.
  if (path == null) return "";
  const h = home.replace(/\/+$/, "");
  if (!h || h === "") return path;
  if (path === h) return "~";
  if (path.startsWith(h + "/")) return "~" + path.slice(h.length);
  return path;
}

/** Splits a (tilde-shortened) path into the part that may be cut and the end that is always
 * shown: the last `keep` segments. */
export function splitPath(path: string, keep = 2): { head: string; tail: string } {
  const parts = path.split("/");
  if (parts.length <= keep) return { head: "", tail: path };
  const tail = parts.slice(-keep).join("/");
  return { head: path.slice(0, path.length - tail.length), tail };
}

/** A plan file's slug: its file name without `.md`. */
export function slugOf(path: string): string {
  return (path.split("/").pop() ?? path).replace(/\.md$/i, "");
}
