// A small element builder: h('button', {onclick, 'aria-label': ...}, 'text', child, ...).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * Puts `nodes` into `parent`, keeping every child that already looks the same (tag,
 * attributes, text): a refresh that changed nothing must not swap a card or a button under
 * the finger of a driver who is tapping it. Whatever a kept node's handlers act on must
 * therefore be visible in its attributes (the cards carry their key in a `data-` attribute).
 */
export function patch(parent, ...nodes) {
  const fresh = nodes.flat().filter((n) => n !== null && n !== undefined && n !== false);
  const old = [...parent.childNodes];
  fresh.forEach((node, i) => {
    const current = old[i];
    if (!current) parent.append(node);
    else if (!current.isEqualNode(node)) parent.replaceChild(node, current);
  });
  for (const extra of old.slice(fresh.length)) extra.remove();
}
