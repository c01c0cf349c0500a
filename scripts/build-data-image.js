// Makes the prepared embedded database (dist/store/pglite-image.tar.gz and its manifest): the
// migrations applied and the bundled release loaded, so a first start unpacks it instead of
// running initdb, the migrations and the release load. Skipped when the image there was made
// from the same PGlite, migrations and release. Runs on the compiled code (after tsc).
import { buildDataImage } from '../dist/main/cli-database.js';

const started = performance.now();
const made = await buildDataImage();
console.log(
  made
    ? `prepared database image written (${((performance.now() - started) / 1000).toFixed(1)} s)`
    : 'prepared database image up to date',
);
