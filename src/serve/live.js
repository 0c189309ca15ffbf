// matome serve: reload the page when the site is rebuilt; show a build error over the page.
// Injected into HTML responses by `matome serve` only; never part of a built site.
(() => {
  const script = document.currentScript;
  const base = (script && script.dataset.base) || "/";
  const events = new EventSource(base + "__matome/events");
  let overlay = null;
  events.addEventListener("reload", () => location.reload());
  events.addEventListener("build-error", (e) => {
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "matome-error";
      overlay.setAttribute("role", "alert");
      // Styles set through the DOM: the pages' CSP allows no inline style attributes.
      Object.assign(overlay.style, {
        position: "fixed", inset: "0", zIndex: "2147483647", overflow: "auto",
        background: "rgba(20, 0, 0, 0.92)", color: "#ffdede", padding: "2rem",
        font: "14px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace", whiteSpace: "pre-wrap",
      });
      document.body.appendChild(overlay);
    }
    overlay.textContent = "matome build failed\n\n" + e.data +
      "\n\nFix it and save: the page reloads when the site builds again.";
  });
})();
