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
  const init = () => {
    light();
    forward(".primary-toggle");
    forward(".secondary-toggle");
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
