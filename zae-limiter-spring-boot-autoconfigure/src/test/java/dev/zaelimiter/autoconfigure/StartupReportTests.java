package dev.zaelimiter.autoconfigure;

import io.awspring.cloud.autoconfigure.core.AwsAutoConfiguration;
import io.awspring.cloud.autoconfigure.core.CredentialsProviderAutoConfiguration;
import io.awspring.cloud.autoconfigure.core.RegionProviderAutoConfiguration;
import io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Starts real applications (SpringApplication, with the failure analyzers registered in spring.factories) with the
 * starter's auto-configurations and no AWS configuration, and reads what the user sees on the console.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupReportTests {

    private static final Map<String, String> NO_AWS = Map.of("aws.configFile", "/nonexistent/zae-limiter/aws-config",
            "aws.sharedCredentialsFile", "/nonexistent/zae-limiter/aws-credentials", "aws.disableEc2Metadata", "true");

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({AwsAutoConfiguration.class, CredentialsProviderAutoConfiguration.class,
            RegionProviderAutoConfiguration.class, DynamoDbAutoConfiguration.class, ZaeLimiterAutoConfiguration.class})
    static class App {
    }

    @BeforeAll
    static void noRegion() {
        assumeTrue(System.getenv("AWS_REGION") == null && System.getProperty("aws.region") == null,
                "AWS_REGION or aws.region is set: these tests need a machine without a region");
        NO_AWS.forEach(System::setProperty);
    }

    @AfterAll
    static void restore() {
        NO_AWS.keySet().forEach(System::clearProperty);
    }

    private static ConfigurableApplicationContext run(String... args) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(args);
    }

    @Test
    void anApplicationWithNoConfigurationStartsInMemoryAndSaysSoInOneLine(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run()) {
            assertThat(context.isActive()).isTrue();
        }
        assertThat(output.getOut().lines().filter(l -> l.contains("zae-limiter uses"))).singleElement().asString()
                .contains("in-memory store");
        assertThat(output.getOut()).doesNotContain("Unable to load region");
    }

    @Test
    void theDynamoDbStoreWithoutARegionPrintsWhatToWrite(CapturedOutput output) {
        assertThatThrownBy(() -> run("--zae.limiter.store=dynamodb")).isNotNull();
        assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START")
                .contains("zae-limiter is set to use the DynamoDB store")
                .contains("spring.cloud.aws.region.static=eu-west-1");
    }

    @Test
    void aMisspelledKeyPrintsTheKeyItProbablyMeant(CapturedOutput output) {
        assertThatThrownBy(() -> run("--zae.limiter.resources.api.limits.rpm.capacity=10",
                "--zae.limiter.resources.api.limits.rpm.refil-amount=1")).isNotNull();
        assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START")
                .contains("zae.limiter.resources.api.limits.rpm.refil-amount")
                .contains("did you mean zae.limiter.resources.api.limits.rpm.refill-amount?");
    }
}
