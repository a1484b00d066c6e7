// An agent at work, as its terminal sees it: a spinner line redrawn ten times a second and, five
// times a second, a coloured line of tool activity scrolled above it (about 2 KB/s, the rate of
// Claude Code reading and editing files). Runs until killed.
// Usage: node stream-agent.mjs

const TOOLS = ["Read", "Edit", "Bash", "Grep", "Write"];
const SPIN = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
let tick = 0;
const started = Date.now();
setInterval(() => {
  tick++;
  let out = "\r\x1b[2K";
  if (tick % 2 === 0) {
    const tool = TOOLS[tick % TOOLS.length];
    out += `\x1b[1;32m⏺\x1b[0m \x1b[1m${tool}\x1b[0m(src/module_${tick % 97}/file_${tick}.ts) \x1b[2m· ${(tick * 37) % 400} lines · 日本語 ok\x1b[0m\r\n`;
  }
  const secs = Math.round((Date.now() - started) / 1000);
  out += `\x1b[38;5;208m${SPIN[tick % SPIN.length]}\x1b[0m Working… \x1b[2m(${secs}s · esc to interrupt)\x1b[0m`;
  process.stdout.write(out);
}, 100);
