package dev.zaelimiter.docs.testing;

import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;
import org.springframework.stereotype.Service;

/**
 * The application that docs/testing-your-limits.md tests: its properties choose the DynamoDB store (as in
 * production) and limit report rendering to 2 per minute per customer. Only the auto-configurations it needs are
 * imported, so that this module's test classpath (which has Spring Cloud AWS without a region) does not matter.
 */
@SpringBootConfiguration
@ImportAutoConfiguration({AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
        ZaeLimiterAopAutoConfiguration.class})
@Import(ReportApplication.ReportService.class)
@PropertySource("classpath:dev/zaelimiter/docs/testing/report-app.properties")
public class ReportApplication {

    @Service
    public static class ReportService {

        @RateLimited(resource = "reports", entity = "#customer", consume = @Consume(limit = "rpm"))
        public String render(String customer) {
            return "report for " + customer;
        }
    }
}
