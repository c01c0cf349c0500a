/** The product's one name, wherever it is shown: pages, dashboard, mail, status page. */
export const PRODUCT_NAME = 'European Salary Data API';
