// README "Requirements": the Node lines the gateway and its native modules support. On another
// one the SQLite driver's binary would not load (or would crash), so the command and the test
// runner say so in one line instead.

/** Why this Node.js cannot run the gateway, or null when it can. */
export function unsupportedNodeMessage(program, version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  if (major === 22 ? minor >= 13 : major >= 24) return null;
  return `${program} needs Node.js 22.13 or newer on the 22 line, or 24 or newer; this is Node.js ${version}.`;
}
