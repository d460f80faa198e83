package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link WebStackScenarios} on the servlet filter, through MockMvc. */
class ServletStackScenariosTests extends WebStackScenarios {

    @Override
    void run(List<Class<?>> userConfigurations, String[] properties, Scenario scenario) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withUserConfiguration(TestWebApp.Mvc.class)
                .withUserConfiguration(userConfigurations.toArray(Class<?>[]::new))
                .withPropertyValues(COMMON)
                .withPropertyValues(properties)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Filter filter = (Filter) context.getBean(FilterRegistrationBean.class).getFilter();
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(filter).build();
                    Http http = (method, path, headers) -> {
                        MockHttpServletRequestBuilder request = MockMvcRequestBuilders.request(org.springframework.http.HttpMethod.valueOf(method), path);
                        for (int i = 0; i < headers.length; i += 2) {
                            request.header(headers[i], headers[i + 1]);
                        }
                        MockHttpServletResponse response;
                        try {
                            response = mvc.perform(request).andReturn().getResponse();
                        } catch (ServletException unhandled) {
                            // MockMvc has no container to turn an exception that left the chain into a 500
                            return new Answer(500, Map.of(), "");
                        }
                        Map<String, String> names = new LinkedHashMap<>();
                        for (String name : response.getHeaderNames()) {
                            names.put(name.toLowerCase(Locale.ROOT), response.getHeader(name));
                        }
                        return new Answer(response.getStatus(), names,
                                new String(response.getContentAsByteArray(), StandardCharsets.UTF_8));
                    };
                    scenario.run(http, context.getBean(RateLimiter.class), context.getBean(MutableClock.class));
                });
    }
}
