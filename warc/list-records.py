"""Lists every record of the given WARC files as JSON lines, read with Python's warcio (an
implementation independent of the warcio.js that wrote them). Used by the warc/ tests.

The payload digest is recomputed here from the payload bytes so a test can compare it with what the
writer claimed, and `warcio check` verifies the block digests separately."""
import base64
import hashlib
import json
import sys

from warcio.archiveiterator import ArchiveIterator


def headers(status_and_headers):
    if status_and_headers is None:
        return None
    return {
        "statusline": status_and_headers.statusline,
        "protocol": status_and_headers.protocol,
        "headers": [[k, v] for k, v in status_and_headers.headers],
    }


def main(paths):
    for path in paths:
        with open(path, "rb") as f:
            it = ArchiveIterator(f, check_digests=False)
            for record in it:
                payload = record.raw_stream.read()
                h = record.rec_headers
                out = {
                    "file": path,
                    "offset": it.get_record_offset(),
                    "version": h.protocol,
                    "type": record.rec_type,
                    "warc_headers": [[k, v] for k, v in h.headers],
                    "http": headers(record.http_headers),
                    "payload_sha1": "sha1:" + base64.b32encode(hashlib.sha1(payload).digest()).decode(),
                    "payload_length": len(payload),
                    "payload_text": payload[:200].decode("utf-8", "replace"),
                }
                if record.rec_type == "warcinfo":
                    out["payload_text"] = payload.decode("utf-8", "replace")
                print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
