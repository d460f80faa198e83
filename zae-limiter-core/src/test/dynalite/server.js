// Starts dynalite in memory on a free port and prints "PORT <n>" for the test harness.
// Exits when its stdin closes, so the server never outlives the JVM that started it.
const dynalite = require('dynalite');

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
