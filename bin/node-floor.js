// Which Node runs switchboard: 22.12 or newer, with its TypeScript type stripping on (the default
// from 22.18; 22.12 to 22.17 have it behind --experimental-strip-types, which the launcher adds).

/** The oldest Node that runs switchboard. */
export const NODE_FLOOR = '22.12.0';

/**
 * What the launcher must do on this Node: run (`ok`), run itself again with type stripping on
 * (`needs-flag`), or stop with one line saying which Node is needed (`too-old`).
 *
 * @param {string} version - `process.versions.node`, e.g. `24.11.0`.
 * @param {{ typescript?: unknown }} features - `process.features`; `typescript` is `'strip'` or
 *   `'transform'` where Node strips types now, `false` (or absent, before 22.10) where it does not.
 * @returns {{ kind: 'ok' } | { kind: 'needs-flag' } | { kind: 'too-old', message: string }}
 */
export function nodeSupport(version, features) {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [floorMajor = 0, floorMinor = 0] = NODE_FLOOR.split('.').map(Number);
  if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
    return {
      kind: 'too-old',
      message: `switchboard needs Node.js ${NODE_FLOOR} or newer (24 LTS recommended); this is Node.js ${version}. Install Node 24 (e.g. with your version manager) and run the command again.`,
    };
  }
  return features.typescript ? { kind: 'ok' } : { kind: 'needs-flag' };
}
