// Where and as whom WARC files are written: the crawl's services carry one when --warc-dir is given.
export interface WarcOutput {
  dir: string;
  /**
   * Distinguishes writers sharing a directory: '' for a crawl's own files, 'export' for `warc export`.
   * Writer ids are `<log id>-[<role>-]fetched-<partition>`: one per task, the same on every worker, so
   * a task that moves to a worker sharing the directory continues the files of its previous owner.
   */
  role: string;
  /** warcinfo `operator`: who runs the crawl (contact); default the User-Agent, which names its contact URL. */
  operator?: string;
  /** A file is closed and the next begun before it passes this size (default 1 GB). */
  maxFileBytes?: number;
}

