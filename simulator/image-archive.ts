/**
 * Builds software image tarballs in memory (plain ustar), as uploads and TFTP downloads expect:
 * a MANIFEST with `version=` and `purpose=` lines, plus any other files.
 */

function header(name: string, size: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (text: string, offset: number, length: number): void => {
    h.write(text.slice(0, length), offset, length, 'ascii');
  };
  const octal = (n: number, length: number): string => n.toString(8).padStart(length - 1, '0') + '\0';
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(1_700_000_000, 12), 136, 12);
  put('        ', 148, 8); // checksum is computed with this field as spaces
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return h;
}

/** A tar archive of the given files (names up to 100 ASCII characters). */
export function buildTar(files: Record<string, string | Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    parts.push(header(name, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export interface ImageSpec {
  version: string;
  /** Default: the BMC purpose of namespace `namespace`. */
  purpose?: string;
  namespace?: string;
  /** Extra files beside MANIFEST. */
  files?: Record<string, string | Buffer>;
}

export function buildImageTarball(spec: ImageSpec): Buffer {
  const ns = spec.namespace ?? 'mgmt_project';
  const purpose = spec.purpose ?? `xyz.${ns}.Software.Version.VersionPurpose.BMC`;
  return buildTar({
    MANIFEST: `purpose=${purpose}\nversion=${spec.version}\n`,
    'image-bmc': Buffer.alloc(1024, 0x5a),
    ...spec.files,
  });
}
