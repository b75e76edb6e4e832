import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * cgroup v1 groups for tests: where this process's group of a controller is,
 * and a child group created under it that tests put a process into. Written
 * independently of src/host/proc.ts so the probe is checked against the
 * kernel, not against itself.
 */

interface V1Mount {
  readonly mountPoint: string;
  readonly root: string;
  readonly writable: boolean;
}

function v1Mount(controller: string): V1Mount | undefined {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined) continue;
    const fields = before.split(' ');
    const [fsType, , superOptions] = after.split(' ');
    if (fsType !== 'cgroup' || !(superOptions ?? '').split(',').includes(controller)) continue;
    return { root: fields[3] ?? '/', mountPoint: fields[4] ?? '', writable: (fields[5] ?? '').split(',').includes('rw') };
  }
  return undefined;
}

/** This process's group directory in the v1 hierarchy of `controller`, if it is mounted. */
function ownV1Group(controller: string): string | undefined {
  const mount = v1Mount(controller);
  if (mount === undefined) return undefined;
  const line = fs
    .readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((entry) => (entry.split(':')[1] ?? '').split(',').includes(controller));
  const groupPath = line?.split(':').slice(2).join(':') ?? '/';
  const relative =
    mount.root !== '/' && groupPath.startsWith(mount.root) ? groupPath.slice(mount.root.length) : mount.root === '/' ? groupPath : '/';
  const directory = path.join(mount.mountPoint, relative);
  return fs.existsSync(directory) ? directory : mount.mountPoint;
}

/**
 * Whether this environment should let a test create memory cgroups: root, with
 * a writable cgroup v1 memory hierarchy mounted. Where it should and cannot,
 * CI fails instead of skipping.
 */
export function cgroupV1ShouldBeCreatable(): boolean {
  return process.geteuid?.() === 0 && v1Mount('memory')?.writable === true;
}

export type CreatedGroup =
  { readonly ok: true; readonly dir: string; readonly remove: () => Promise<void> } | { readonly ok: false; readonly reason: string };

/** Creates `NAME` under this process's group of `controller`, with `settings` written into its files. */
export function createV1Group(controller: string, name: string, settings: readonly (readonly [string, string])[]): CreatedGroup {
  const parent = ownV1Group(controller);
  if (parent === undefined) return { ok: false, reason: `no cgroup v1 ${controller} hierarchy is mounted` };
  const dir = path.join(parent, name);
  try {
    fs.mkdirSync(dir);
  } catch (error) {
    return {
      ok: false,
      reason: `cannot create a ${controller} cgroup under ${parent} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
  const remove = async () => {
    // A group can only be removed once its last process is gone, which the kernel notes a moment after exit.
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        fs.rmdirSync(dir);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    fs.rmdirSync(dir);
  };
  try {
    for (const [file, value] of settings) fs.writeFileSync(path.join(dir, file), value);
  } catch (error) {
    fs.rmdirSync(dir);
    return {
      ok: false,
      reason: `cannot configure the ${controller} cgroup ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
  return { ok: true, dir, remove };
}
