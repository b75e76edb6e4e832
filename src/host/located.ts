/* Host facts as a file gives them (a profile, the host: section of .tune-lint.yaml): each value with where it is, for errors at file:line:col. */

/**
 * A value read from a profile or config, with where it was written: for YAML
 * `host.yaml:3:6`, for values the lead already parsed just the file name.
 * Mappings and sequences keep their children located too.
 */
export interface Located {
  readonly value: unknown;
  readonly where: string;
  readonly entries?: readonly LocatedEntry[];
  readonly items?: readonly Located[];
}

export interface LocatedEntry {
  readonly key: string;
  readonly keyWhere: string;
  readonly value: Located;
}
