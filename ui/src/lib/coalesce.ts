/**
 * Runs `task` for a burst of change events at most once at a time: a call while it runs asks for
 * one more run after it (however many calls came), started `gapMs` after the previous run ended.
 * A failed run is logged, and the next call runs again. A live session appending records sends an event every few hundred ms; reloading a heavy home's
 * whole list for each one kept the web view's memory climbing (benches/results/memory.md).
 */
export function coalesce(task: () => Promise<void>, gapMs = 0): () => void {
  let running = false;
  let again = false;
  const run = async () => {
    running = true;
    try {
      await task();
    } catch (e) {
      console.warn("a reload failed", e);
    } finally {
      if (again) {
        again = false;
        setTimeout(run, gapMs);
      } else {
        running = false;
      }
    }
  };
  return () => {
    if (running) again = true;
    else void run();
  };
}
