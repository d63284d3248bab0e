// benchsite serve: reloads this page after each rebuild and shows a broken edit over it.
(() => {
  const build = __BUILD__;
  const error = __ERROR__;
  const show = (text) => {
    let overlay = document.getElementById('benchsite-overlay');
    if (text === null) {
      if (overlay) overlay.remove();
      return;
    }
    if (!overlay) {
      overlay = document.createElement('div');
      overlay.id = 'benchsite-overlay';
      overlay.setAttribute('role', 'alert');
      overlay.style.cssText =
        'position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2rem;' +
        'background:rgba(24,24,27,.95);color:#f4f4f5;font:14px/1.5 ui-monospace,monospace';
      const title = document.createElement('h2');
      title.textContent = 'The last edit broke the build';
      title.style.cssText = 'margin:0 0 1rem;color:#fca5a5;font:bold 16px ui-monospace,monospace';
      const pre = document.createElement('pre');
      // The site's own `pre` style (a light background in the light scheme) must not reach
      // the overlay's text.
      pre.style.cssText =
        'margin:0;padding:0;white-space:pre-wrap;background:transparent;color:#f4f4f5;font:inherit';
      const note = document.createElement('p');
      note.textContent =
        'Underneath is the last good build. Fix the file and this goes away by itself.';
      note.style.cssText = 'margin:1rem 0 0;color:#a1a1aa';
      overlay.append(title, pre, note);
      document.body.append(overlay);
    }
    overlay.querySelector('pre').textContent = text;
  };
  const connect = (reconnecting) => {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${location.host}/__benchsite/livereload`);
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.error) show(message.error);
      else if (reconnecting || message.build !== build) location.reload();
      else show(null);
    };
    socket.onclose = () => setTimeout(() => connect(true), 1000);
  };
  if (error !== null) show(error);
  connect(false);
})();
