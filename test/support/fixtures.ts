// Paths of the files under test/fixtures (not compiled: they are read or imported as they are).
export const UPPER_CASE_PARSER = new URL('../../../test/fixtures/upper-case-titles.mjs', import.meta.url).pathname;
export const META_DESCRIPTION_MODULE = new URL('../../../test/fixtures/meta-description.mjs', import.meta.url).pathname;
