// Syntax highlighting of code blocks in rendered plans. The HTML arrives sanitized from Rust with
// `<pre><code class="language-x">`; highlight.js only adds spans with classes.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import yaml from "highlight.js/lib/languages/yaml";
import diff from "highlight.js/lib/languages/diff";

for (const [name, lang] of Object.entries({ bash, go, javascript, json, python, rust, sql, typescript, yaml, diff })) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(["sh", "shell"], { languageName: "bash" });
hljs.registerAliases(["js"], { languageName: "javascript" });
hljs.registerAliases(["ts"], { languageName: "typescript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["rs"], { languageName: "rust" });

/** Highlights every code block with a known language inside `root`. */
export function highlightIn(root: HTMLElement) {
  for (const el of root.querySelectorAll<HTMLElement>("pre code[class*='language-']")) {
    const lang = [...el.classList].find((c) => c.startsWith("language-"))?.slice(9);
    if (lang && hljs.getLanguage(lang) && !el.dataset.highlighted) {
      hljs.highlightElement(el);
    }
  }
}

/** A Svelte action: highlights code blocks after each render of the node's content. */
export function highlighted(node: HTMLElement, _html: string) {
  highlightIn(node);
  return { update: () => highlightIn(node) };
}
