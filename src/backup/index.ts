export { BackupFormatError, decodeBackup, type Manifest } from './format.js';
export { RestoreRefused, pgliteDirOf, restoreBackup } from './restore.js';
export { backupJob, backupOnce } from './schedule.js';
export { backupName, pruneBackups, writeBackup } from './snapshot.js';
