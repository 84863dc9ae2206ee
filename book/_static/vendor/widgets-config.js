// Loaded after require.js and before the ipywidgets embed script (nb_ipywidgets_js in _config.yml).
(function () {
  // 1. Point requirejs at the vendored html-manager, so that the fonts it loads come from this site
  //    (by default webpack resolves them relative to the page, which gives 404s).
  var src = document.currentScript.src;
  var base = src.slice(0, src.lastIndexOf("/") + 1) + "html-manager";
  require.config({ paths: { "@jupyter-widgets/html-manager/dist": base } });

  // 2. The embed script typesets widget labels with the MathJax 2 API (MathJax.Hub.Queue); the book
  //    loads MathJax 3. Bridge the one call it makes.
  function bridge() {
    if (window.MathJax && !window.MathJax.Hub) {
      window.MathJax.Hub = {
        Queue: function (job) {
          var el = job && job[2];
          if (window.MathJax.typesetPromise) {
            window.MathJax.typesetPromise(el ? [el] : undefined).catch(function () {});
          }
        },
      };
    }
  }
  bridge();
  document.addEventListener("DOMContentLoaded", bridge);
})();
