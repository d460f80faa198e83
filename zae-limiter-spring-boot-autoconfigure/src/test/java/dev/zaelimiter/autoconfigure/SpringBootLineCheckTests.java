package dev.zaelimiter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A zae-limiter artifact on the wrong Spring Boot major version stops startup, naming the artifact to use. */
class SpringBootLineCheckTests {

    /** A version of the other line, and that line's starter. */
    private static final String OTHER_VERSION = SpringBootLine.MAJOR == 4 ? "3.5.7" : "4.0.7";
    private static final String OTHER_STARTER = SpringBootLine.MAJOR == 4 ? "zae-limiter-spring-boot3-starter"
            : "zae-limiter-spring-boot-starter";

    @Test
    void theRunningSpringBootIsThisArtifactsLine() {
        assertThat(SpringBootVersion.getVersion()).startsWith(SpringBootLine.MAJOR + ".");
        assertThatCode(() -> SpringBootLineCheck.check(SpringBootVersion.getVersion())).doesNotThrowAnyException();
        assertThatCode(() -> SpringBootLineCheck.check(null)).as("unknown version").doesNotThrowAnyException();
    }

    @Test
    void theOtherLineFailsNamingItsStarter() {
        assertThatThrownBy(() -> SpringBootLineCheck.check(OTHER_VERSION))
                .isInstanceOfSatisfying(WrongSpringBootLineException.class, e -> {
                    assertThat(e.runningVersion()).isEqualTo(OTHER_VERSION);
                    assertThat(e.replacement()).isEqualTo(OTHER_STARTER);
                    assertThat(e.getMessage()).isEqualTo(SpringBootLine.STARTER + " is built for Spring Boot "
                            + SpringBootLine.MAJOR + ", but this application runs Spring Boot " + OTHER_VERSION
                            + ": depend on dev.zaelimiter:" + OTHER_STARTER + " instead");
                });
    }

    @Test
    void theStartupReportSaysWhatToReplaceWithWhat() {
        WrongSpringBootLineException wrong = new WrongSpringBootLineException(OTHER_VERSION, OTHER_STARTER);
        FailureAnalysis analysis = new WrongSpringBootLineFailureAnalyzer().analyze(new IllegalStateException(wrong));
        assertThat(analysis.getDescription()).isEqualTo(wrong.getMessage() + ".");
        assertThat(analysis.getAction()).isEqualTo("Replace dev.zaelimiter:" + SpringBootLine.STARTER + " (and "
                + SpringBootLine.AUTOCONFIGURE + ", if the build names it) with dev.zaelimiter:" + OTHER_STARTER
                + ", the starter for Spring Boot " + OTHER_VERSION + "'s line.");
    }

    @Test
    void aLineWithoutAnArtifactSaysSo() {
        assertThatThrownBy(() -> SpringBootLineCheck.check("5.0.0"))
                .isInstanceOfSatisfying(WrongSpringBootLineException.class, e -> {
                    assertThat(e.replacement()).isNull();
                    assertThat(e.getMessage()).endsWith("runs Spring Boot 5.0.0: no zae-limiter artifact of this"
                            + " version serves that Spring Boot line");
                    assertThat(new WrongSpringBootLineFailureAnalyzer().analyze(e).getAction())
                            .contains("3.5 (zae-limiter-spring-boot3-starter)")
                            .contains("4.0 and 4.1 (zae-limiter-spring-boot-starter)");
                });
    }

    @Test
    void springBootRunsTheCheckAndItsReportBeforeTheContextStarts() {
        SpringFactoriesLoader factories = SpringFactoriesLoader.forDefaultResourceLocation();
        // some of Spring Boot's own analyzers need a bean factory to be made: left out here
        SpringFactoriesLoader.FailureHandler skip = SpringFactoriesLoader.FailureHandler.handleMessage((m, e) -> { });
        assertThat(factories.load(ApplicationContextInitializer.class, skip))
                .anySatisfy(initializer -> assertThat(initializer).isInstanceOf(SpringBootLineCheck.class));
        assertThat(factories.load(FailureAnalyzer.class, skip))
                .anySatisfy(analyzer -> assertThat(analyzer).isInstanceOf(WrongSpringBootLineFailureAnalyzer.class));
    }
}
