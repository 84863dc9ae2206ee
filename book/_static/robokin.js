/* robokin book: behaviour fixes checked by tests/test_site.py (make check-site). */
(() => {
  // Light only (the figures are drawn for a white page), even if an earlier visit stored "dark".
  const light = () => {
    document.documentElement.dataset.theme = "light";
    document.documentElement.dataset.mode = "light";
  };
  light();
  try { localStorage.setItem("mode", "light"); localStorage.setItem("theme", "light"); } catch (e) { /* private mode */ }

  // The themes attach their sidebar handlers to the FIRST .primary-toggle / .secondary-toggle in the page, which is a
  // hidden copy in the site header; the buttons a reader sees (in the article header) get nothing. Forward their
  // clicks to the button that has the handlers.
  const forward = (selector) => {
    const all = Array.from(document.querySelectorAll(selector));
    const target = all[0];
    all.slice(1).forEach((btn) => btn.addEventListener("click", (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      btn.blur();
      target.click();
    }));
  };
  // Inline maths wider than its line cannot wrap (MathJax 3 has no line breaking): give it its own scroll box
  // (robokin.css) so that a reader can swipe to the end of it, instead of the column clipping it.
  const markWideMath = () => {
    document.querySelectorAll("mjx-container:not([display=true])").forEach((m) => {
      m.classList.remove("robokin-wide-math");
      // the line it sits on: the paragraph, list item or cell (span.math around it is as wide as the maths)
      const line = m.closest("p, li, td, th, dd, dt, figcaption, div, section, article");
      if (line && m.getBoundingClientRect().width > line.clientWidth + 1) m.classList.add("robokin-wide-math");
    });
  };
  const afterMath = (tries = 200) => {
    const mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) mj.startup.promise.then(markWideMath);
    else if (tries > 0) setTimeout(() => afterMath(tries - 1), 50);
  };
  // The language switch keeps the reader's place: the section's anchor goes with it (sections keep their English
  // ids in the Chinese edition, book/_ext/robokin_i18n.py).
  const keepAnchor = () => {
    document.querySelectorAll("a.robokin-lang-switch").forEach((a) => {
      a.addEventListener("click", () => {
        if (location.hash) a.href = a.href.split("#")[0] + location.hash;
      });
    });
  };
  const init = () => {
    light();
    forward(".primary-toggle");
    forward(".secondary-toggle");
    keepAnchor();
    afterMath();
    let t = null;
    window.addEventListener("resize", () => { clearTimeout(t); t = setTimeout(markWideMath, 150); });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
