// Starts dynalite on a free port (or the port given first) and prints "PORT <n>" for the test harness: in memory,
// or in the LevelDB directory given second, so that a server killed and restarted on it keeps its tables.
// Exits when its stdin closes, so the server never outlives the JVM that started it.
const dynalite = require('dynalite');

const options = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
if (process.argv[3]) {
  options.path = process.argv[3];
}
const server = dynalite(options);
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
