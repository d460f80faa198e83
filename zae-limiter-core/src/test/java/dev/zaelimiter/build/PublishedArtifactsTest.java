package dev.zaelimiter.build;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a public repository asks of every published artifact, read from the build's POMs: the BOM lists exactly the
 * jars the build publishes, carries the url, license, scm and developers they all inherit, and the getting-started
 * page gives the BOM's coordinates. A module is published unless it (or a parent) sets {@code maven.deploy.skip}.
 */
class PublishedArtifactsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path BOM = ROOT.resolve("zae-limiter-bom/pom.xml");

    /** One module of the reactor, with what publishing needs from its POM. */
    record Module(Path pom, String artifactId, String packaging, boolean published, boolean inheritsTheBom,
            String name, String description) {
    }

    @Test
    void theBomListsEveryPublishedJarAndNothingElse() {
        TreeSet<String> published = new TreeSet<>();
        modules().stream().filter(m -> m.published() && m.packaging().equals("jar"))
                .forEach(m -> published.add(m.artifactId()));
        TreeSet<String> managed = new TreeSet<>();
        for (Element dependency : children(child(pom(BOM), "dependencyManagement", "dependencies"), "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo("dev.zaelimiter");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            managed.add(text(dependency, "artifactId"));
        }
        assertThat(published).contains("zae-limiter-core", "zae-limiter-spring-boot-starter",
                "zae-limiter-spring-boot3-starter");
        assertThat(managed).isEqualTo(published);
    }

    @Test
    void theBomCarriesWhatAPublicRepositoryAsksFor() {
        Element bom = pom(BOM);
        assertThat(text(bom, "url")).startsWith("https://");
        Element license = children(child(bom, "licenses"), "license").get(0);
        assertThat(text(license, "name")).isEqualTo("Apache-2.0");
        assertThat(text(license, "url")).isEqualTo("https://www.apache.org/licenses/LICENSE-2.0.txt");
        Element scm = child(bom, "scm");
        assertThat(text(scm, "connection")).startsWith("scm:git:");
        assertThat(text(scm, "developerConnection")).startsWith("scm:git:");
        assertThat(text(scm, "url")).isEqualTo(text(bom, "url"));
        assertThat(text(children(child(bom, "developers"), "developer").get(0), "name")).isNotBlank();
        assertThat(ROOT.resolve("LICENSE")).content().contains("Apache License", "Version 2.0, January 2004");
    }

    @Test
    void everyPublishedModuleInheritsTheBomAndSaysWhatItIs() {
        List<Module> published = modules().stream().filter(Module::published).toList();
        assertThat(published).hasSizeGreaterThanOrEqualTo(5);
        for (Module module : published) {
            assertThat(module.inheritsTheBom()).as("%s inherits zae-limiter-bom", module.pom()).isTrue();
            assertThat(module.name()).as("%s: name", module.pom()).isNotBlank();
            assertThat(module.description()).as("%s: description", module.pom()).isNotBlank();
        }
    }

    @Test
    void gettingStartedImportsTheBomAtTheBuildsVersion() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/getting-started.md"));
        Matcher maven = Pattern.compile("<!-- xml: getting-started-maven -->\\s*```xml\\n(.*?)```", Pattern.DOTALL)
                .matcher(page);
        assertThat(maven.find()).as("the Maven block of getting-started.md").isTrue();
        String version = text(pom(BOM), "version");
        assertThat(maven.group(1)).contains("<artifactId>zae-limiter-bom</artifactId>",
                "<version>" + version + "</version>", "<artifactId>zae-limiter-spring-boot-starter</artifactId>");
        assertThat(page).contains("platform(\"dev.zaelimiter:zae-limiter-bom:" + version + "\")",
                "`dev.zaelimiter:zae-limiter-spring-boot3-starter`");
    }

    @Test
    void everyArtifactThePagesNameIsInTheBom() throws IOException {
        TreeSet<String> managed = new TreeSet<>();
        children(child(pom(BOM), "dependencyManagement", "dependencies"), "dependency")
                .forEach(dependency -> managed.add(text(dependency, "artifactId")));
        managed.add("zae-limiter-bom");
        Pattern coordinates = Pattern.compile("dev\\.zaelimiter:([a-z0-9-]+)");
        for (String page : List.of("getting-started.md", "spring-boot-lines.md")) {
            Matcher named = coordinates.matcher(Files.readString(ROOT.resolve("docs").resolve(page)));
            int count = 0;
            while (named.find()) {
                assertThat(managed).as("%s names dev.zaelimiter:%s", page, named.group(1)).contains(named.group(1));
                count++;
            }
            assertThat(count).as("artifacts named in %s", page).isPositive();
        }
    }

    // ---- reading the reactor

    /** Every module under the root's {@code <modules>}, recursively, the root and the BOM included. */
    static List<Module> modules() {
        List<Module> modules = new ArrayList<>();
        collect(ROOT.resolve("pom.xml"), modules);
        return modules;
    }

    private static void collect(Path pomFile, List<Module> into) {
        Element pom = pom(pomFile);
        into.add(new Module(pomFile, text(pom, "artifactId"), Optional.ofNullable(text(pom, "packaging")).orElse("jar"),
                !deploySkipped(pomFile), inheritsTheBom(pomFile), text(pom, "name"), text(pom, "description")));
        Element modules = child(pom, "modules");
        if (modules != null) {
            for (Element module : children(modules, "module")) {
                collect(pomFile.resolveSibling(module.getTextContent().trim()).resolve("pom.xml").normalize(), into);
            }
        }
    }

    /** The nearest {@code maven.deploy.skip} along the parent chain, false when none sets it. */
    private static boolean deploySkipped(Path pomFile) {
        for (Path p = pomFile; p != null; p = parentPom(p)) {
            Element properties = child(pom(p), "properties");
            String skip = properties == null ? null : text(properties, "maven.deploy.skip");
            if (skip != null) {
                return Boolean.parseBoolean(skip);
            }
        }
        return false;
    }

    /** Whether the POM is the BOM or has it among its parents. */
    private static boolean inheritsTheBom(Path pomFile) {
        for (Path p = pomFile; p != null; p = parentPom(p)) {
            if (p.equals(BOM.normalize())) {
                return true;
            }
        }
        return false;
    }

    /** The parent's POM in this repository, or null when it has none here (no parent, or Spring Boot's). */
    private static Path parentPom(Path pomFile) {
        Element parent = child(pom(pomFile), "parent");
        if (parent == null) {
            return null;
        }
        Element relativePath = child(parent, "relativePath");
        String path = relativePath == null ? "../pom.xml" : relativePath.getTextContent().trim();
        if (path.isEmpty()) {
            return null;
        }
        Path resolved = pomFile.resolveSibling(path).normalize();
        return Files.isDirectory(resolved) ? resolved.resolve("pom.xml") : resolved;
    }

    // ---- XML

    private static Element pom(Path file) {
        try {
            Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
            return document.getDocumentElement();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException(file + ": " + e.getMessage(), e);
        }
    }

    /** The element at {@code path} under {@code element}, one direct child per step, or null. */
    private static Element child(Element element, String... path) {
        Element current = element;
        for (String name : path) {
            if (current == null) {
                return null;
            }
            List<Element> found = children(current, name);
            current = found.isEmpty() ? null : found.get(0);
        }
        return current;
    }

    private static List<Element> children(Element element, String name) {
        List<Element> found = new ArrayList<>();
        for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element child && child.getTagName().equals(name)) {
                found.add(child);
            }
        }
        return found;
    }

    private static String text(Element element, String name) {
        Element child = child(element, name);
        return child == null ? null : child.getTextContent().trim();
    }
}
