package dev.zaelimiter.docs;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.autoconfigure.test.AutoConfigureZaeLimiterTest;
import dev.zaelimiter.autoconfigure.test.ZaeLimiterTestStore;
import dev.zaelimiter.autoconfigure.test.ZaeLimiterTestSupport;
import dev.zaelimiter.docs.testing.ReportApplication;
import dev.zaelimiter.docs.testing.ReportApplication.ReportService;
import dev.zaelimiter.store.LimiterStore;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The example of {@code docs/testing-your-limits.md}, run as the page shows it: a {@code @SpringBootTest} of
 * {@link dev.zaelimiter.docs.testing.ReportApplication}, whose properties choose DynamoDB. The methods run in name
 * order, so the second one shows that the first one's empty bucket was reset.
 */
@TestMethodOrder(MethodOrderer.MethodName.class)
// tag::testingYourLimits[]
@SpringBootTest(classes = ReportApplication.class)
@AutoConfigureZaeLimiterTest
class TestingYourLimitsDocsExamplesTest {

    @Autowired
    ReportService reports;          // @RateLimited: 2 reports per minute per customer

    @Autowired
    ZaeLimiterTestSupport limiter;

    @Test
    void aThirdReportInAMinuteIsRefusedUntilATokenComesBack() {
        reports.render("acme");
        reports.render("acme");
        assertThatThrownBy(() -> reports.render("acme"))
                .isInstanceOfSatisfying(RateLimitExceededException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30)));

        limiter.advance(Duration.ofSeconds(30));      // no sleeping: the limiter's clock moves
        assertThat(reports.render("acme")).isEqualTo("report for acme");
    }

    @Test
    void bucketsAreFullAgainInTheNextTest() {         // reset after every test method
        reports.render("acme");
        reports.render("acme");
    }

    @Test
    void theStoreIsInMemoryThoughProductionUsesDynamoDb(@Autowired LimiterStore store) {
        assertThat(store).isInstanceOf(ZaeLimiterTestStore.class);
    }
}
// end::testingYourLimits[]
