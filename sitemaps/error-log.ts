// The errors of one sitemap file, as '<kind>: message' lines. Messages about single entries are kept as
// samples only (a file can hold 50,000 bad entries; the summary counts them all); every other kind
// happens at most once or twice per file by construction and is always kept.
export const MAX_ENTRY_SAMPLES = 10;

export class ErrorLog {
  private readonly messages: string[] = [];
  private entrySamples = 0;
  private notListed = 0;

  add(message: string): void {
    if (message.startsWith('entry ')) {
      if (this.entrySamples >= MAX_ENTRY_SAMPLES) {
        this.notListed++;
        return;
      }
      this.entrySamples++;
    }
    this.messages.push(message);
  }

  list(): string[] {
    if (this.notListed === 0) return [...this.messages];
    return [...this.messages, `errors: ${this.notListed} more entry messages not listed (see the counters)`];
  }
}
