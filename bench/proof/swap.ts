import * as fs from 'node:fs';
import { runCommand } from './processes.js';

/** Raised when this machine cannot give the proof swap; a swap run must stop, not go on without it. */
export class SwapUnavailableError extends Error {}

/** A swap file this proof made and turned on; only this file is ever turned off again. */
export interface SwapFile {
  file: string;
  bytes: number;
}

/**
 * A swap file as small VPSs have one: written full of zeros (swapon refuses
 * sparse files), made with mkswap and turned on with swapon.
 */
export async function enableSwapFile(file: string, bytes: number): Promise<SwapFile> {
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    for (let written = 0; written < bytes; written += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  for (const [command, args] of [
    ['mkswap', [file]],
    ['swapon', [file]],
  ] as const) {
    const result = await runCommand(command, args, { timeoutMs: 60_000 });
    if (result.code !== 0) {
      fs.rmSync(file, { force: true });
      throw new SwapUnavailableError(`${command} ${file} failed: ${(result.stderr || result.stdout).trim()}`);
    }
  }
  return { file, bytes };
}

/** swapoff on our own file (it pages back in whatever is still out), then removes it. */
export async function disableSwapFile(swap: SwapFile): Promise<void> {
  const result = await runCommand('swapoff', [swap.file], { timeoutMs: 300_000 });
  if (result.code !== 0) throw new Error(`swapoff ${swap.file} failed: ${(result.stderr || result.stdout).trim()}`);
  fs.rmSync(swap.file, { force: true });
}
