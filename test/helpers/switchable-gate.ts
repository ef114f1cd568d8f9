/**
 * A switch in front of a stand-in for a remote store (Redis): `gate(call)` runs `call` while the
 * mode is `ok`, refuses it with "connection refused" in `fail` and never answers in `hang`;
 * every call is counted.
 */
export function switchableGate() {
  const control = { mode: 'ok' as 'ok' | 'fail' | 'hang', calls: 0 };
  const gate = async <T>(call: () => Promise<T>): Promise<T> => {
    control.calls += 1;
    if (control.mode === 'fail') throw new Error('connection refused');
    if (control.mode === 'hang') return new Promise<T>(() => undefined);
    return call();
  };
  return { control, gate };
}
