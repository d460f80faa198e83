package dev.zaelimiter.contract;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The contract classes of this TCK, for a store module's check that it runs every one of them: a store names each
 * run {@code <prefix><Contract>Test} (for example {@code dev.zaelimiter.store.redis.Redis} + {@code BucketContract}
 * + {@code Test}) and asserts that {@link #notRunBy} is empty.
 */
public final class TckContracts {

    private static final String FOLDER = "dev/zaelimiter/contract/";

    private TckContracts() {
    }

    /** The simple names of the contract classes, read from the TCK's own classes (a folder or a jar). */
    public static List<String> names() throws IOException, URISyntaxException {
        Path tck = Path.of(TckContracts.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(tck)) {
            try (Stream<Path> files = Files.list(tck.resolve(FOLDER))) {
                files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith("Contract.class"))
                        .forEach(n -> names.add(n.substring(0, n.length() - ".class".length())));
            }
        } else {
            try (JarFile jar = new JarFile(tck.toFile())) {
                jar.stream().map(JarEntry::getName).filter(n -> n.startsWith(FOLDER) && n.endsWith("Contract.class"))
                        .forEach(n -> names.add(n.substring(FOLDER.length(), n.length() - ".class".length())));
            }
        }
        return names;
    }

    /** The contract classes that have no subclass named {@code runPrefix + contract + "Test"}. */
    public static List<String> notRunBy(String runPrefix) throws IOException, URISyntaxException,
            ClassNotFoundException {
        List<String> notRun = new ArrayList<>();
        for (String name : names()) {
            Class<?> contract = Class.forName("dev.zaelimiter.contract." + name);
            try {
                if (!contract.isAssignableFrom(Class.forName(runPrefix + name + "Test"))) {
                    notRun.add(name);
                }
            } catch (ClassNotFoundException e) {
                notRun.add(name);
            }
        }
        return notRun;
    }
}
